//go:build !unix

package events

// oNoFollow is unavailable here; the Lstat check in OpenJSONL still applies.
const oNoFollow = 0

//go:build !unix

package config

// oNoFollow is unavailable here; WriteTemplate's Lstat check still applies.
const oNoFollow = 0

//go:build !unix

package events

import "io/fs"

// oNoFollow is unavailable here; the Lstat check in OpenJSONL still applies.
const oNoFollow = 0

// oNonBlock is unavailable here (and so are FIFOs).
const oNonBlock = 0

// linkCount is not known here; every file counts as singly linked.
func linkCount(fs.FileInfo) uint64 { return 1 }

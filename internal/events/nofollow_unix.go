//go:build unix

package events

import (
	"io/fs"
	"syscall"
)

// oNoFollow makes the open itself refuse a symlink.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock opens a FIFO without waiting for its reader.
const oNonBlock = syscall.O_NONBLOCK

// linkCount returns the number of hard links of the file fi describes.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) // the field's width differs across platforms
	}
	return 1
}

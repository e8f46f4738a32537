//go:build unix && !linux

package sandbox

import "golang.org/x/sys/unix"

// parentFlags open a directory's parent only to stat it and go on up.
const parentFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// holdFlags open a root only to take its identity.
const holdFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC

// isProcFS is false: where a proc file system exists outside Linux it is
// mounted at /proc, which Decide refuses by name.
func isProcFS(int) bool { return false }

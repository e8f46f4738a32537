package sandbox

import "golang.org/x/sys/unix"

// parentFlags open a directory's parent only to stat it and go on up:
// O_PATH needs no read permission on it.
const parentFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// holdFlags open a root only to take its identity.
const holdFlags = unix.O_PATH | unix.O_CLOEXEC

// isProcFS reports whether fd lies on a proc file system, wherever it is
// mounted: for a path tool that is odek's own process. It fails closed.
func isProcFS(fd int) bool {
	var s unix.Statfs_t
	for {
		err := unix.Fstatfs(fd, &s)
		if err == unix.EINTR {
			continue
		}
		return err != nil || s.Type == unix.PROC_SUPER_MAGIC
	}
}

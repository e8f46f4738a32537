//go:build unix

package artifact

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Flags for opening an artifact's file: read-only, never blocking on a FIFO
// swapped in, never inherited by a child.
const (
	openFileFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC
	openDirFlags  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
)

// openRoot opens the directory at the absolute path root without following a
// symlink at any component, so a root swapped for a symlink after it was
// resolved is refused rather than followed.
func openRoot(root string) (*os.File, error) {
	slash, err := os.Open("/")
	if err != nil {
		return nil, err
	}
	rel := strings.TrimPrefix(root, "/")
	if rel == "" {
		return slash, nil
	}
	defer slash.Close()
	return openBeneath(slash, rel, openDirFlags)
}

// walkBeneath opens rel below dir one component at a time, each directory
// with O_NOFOLLOW|O_DIRECTORY from the descriptor of the one before, so no
// symlink is followed and nothing above dir is reached. It is the fallback
// where openat2 is unavailable.
func walkBeneath(dir *os.File, rel string, flags int) (*os.File, error) {
	parts := []string{"."} // rel "." names dir itself
	if rel != "." {
		parts = strings.Split(rel, "/")
	}
	base := int(dir.Fd())
	defer runtime.KeepAlive(dir)
	cur := -1 // our own descriptor for the component opened last
	for i, name := range parts {
		if name == "" || name == ".." || (name == "." && len(parts) > 1) {
			closeFD(cur)
			return nil, errEscapesRoot
		}
		from := base
		if cur >= 0 {
			from = cur
		}
		fl := openDirFlags | unix.O_NOFOLLOW
		if i == len(parts)-1 {
			fl = flags | unix.O_NOFOLLOW
		}
		fd, err := openatRetry(from, name, fl)
		if err != nil {
			err = classifyWalkError(from, name, err)
			closeFD(cur)
			return nil, err
		}
		closeFD(cur)
		cur = fd
	}
	return os.NewFile(uintptr(cur), rel), nil
}

func closeFD(fd int) {
	if fd >= 0 {
		_ = unix.Close(fd)
	}
}

func openatRetry(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// classifyWalkError tells a symlink from other failures: with O_DIRECTORY,
// Linux reports a symlink to a directory as ENOTDIR, not ELOOP.
func classifyWalkError(dirfd int, name string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EMLINK): // EMLINK: FreeBSD's O_NOFOLLOW
		return errSymlinkInPath
	case errors.Is(err, unix.ENOTDIR):
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return errSymlinkInPath
		}
		return errNotDirInPath
	}
	return err
}

// classifyOpenError maps what the kernel said to the package's vocabulary.
func classifyOpenError(err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return errSymlinkInPath
	case errors.Is(err, unix.EXDEV):
		return errEscapesRoot
	case errors.Is(err, unix.ENOTDIR):
		return errNotDirInPath
	}
	return err
}

// stat describes an open file: what the checks between reads compare.
func stat(f *os.File) (fileStat, error) {
	info, err := f.Stat()
	if err != nil {
		return fileStat{}, err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, errors.New("no inode information")
	}
	return fileStat{
		mode: info.Mode(), size: info.Size(),
		// The field widths differ across platforms, hence the conversions.
		id: fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nlink: uint64(st.Nlink),
	}, nil
}

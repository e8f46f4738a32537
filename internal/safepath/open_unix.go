//go:build unix

package safepath

import (
	"errors"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Flags for the opens of this package's callers: a file read-only, never
// blocking on a FIFO swapped in, never inherited by a child; a directory to
// open more below.
const (
	FileFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC
	DirFlags  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
)

// OpenRoot opens the directory at the absolute path root without following
// a symlink at any component, so a root swapped for a symlink after it was
// resolved is refused rather than followed.
func OpenRoot(root string) (*os.File, error) {
	if !strings.HasPrefix(root, "/") {
		return nil, errors.Join(ErrEscapes, errors.New("root "+root+" is not an absolute path"))
	}
	slash, err := os.Open("/")
	if err != nil {
		return nil, err
	}
	rel := strings.Trim(root, "/")
	if rel == "" {
		return slash, nil
	}
	defer slash.Close()
	return OpenBeneath(slash, rel, DirFlags)
}

// OpenBeneath opens rel (clean, relative; "." is dir itself) below dir with
// flags, following no symlink at any component and never leaving dir.
func OpenBeneath(dir *os.File, rel string, flags int) (*os.File, error) {
	fd, err := OpenFD(dir, rel, flags)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// OpenFD is OpenBeneath returning the raw descriptor, which the caller
// closes: for hot loops that read a file with a few system calls.
func OpenFD(dir *os.File, rel string, flags int) (int, error) {
	defer runtime.KeepAlive(dir)
	return openFD(int(dir.Fd()), rel, flags)
}

// walkBeneath opens rel below dirfd one component at a time, each directory
// with O_NOFOLLOW|O_DIRECTORY from the descriptor of the one before, so no
// symlink is followed and nothing above dirfd is reached. It is the fallback
// where openat2 is unavailable.
func walkBeneath(base int, rel string, flags int) (int, error) {
	parts := []string{"."} // rel "." names dir itself
	if rel != "." {
		parts = strings.Split(rel, "/")
	}
	cur := -1 // our own descriptor for the component opened last
	for i, name := range parts {
		if name == "" || name == ".." || (name == "." && len(parts) > 1) {
			closeFD(cur)
			return -1, ErrEscapes
		}
		from := base
		if cur >= 0 {
			from = cur
		}
		fl := DirFlags | unix.O_NOFOLLOW
		if i == len(parts)-1 {
			fl = flags | unix.O_NOFOLLOW
		}
		fd, err := openatRetry(from, name, fl)
		if err != nil {
			err = classifyWalkError(from, name, err)
			closeFD(cur)
			return -1, err
		}
		closeFD(cur)
		cur = fd
	}
	return cur, nil
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
		return ErrSymlink
	case errors.Is(err, unix.ENOTDIR):
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return ErrSymlink
		}
		return ErrNotDir
	}
	return err
}

// classifyOpenError maps what the kernel said to the package's vocabulary.
func classifyOpenError(err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return ErrSymlink
	case errors.Is(err, unix.EXDEV):
		return ErrEscapes
	case errors.Is(err, unix.ENOTDIR):
		return ErrNotDir
	}
	return err
}

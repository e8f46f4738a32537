package safepath

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once the kernel (before 5.6) or a seccomp filter refused
// openat2; from then on every open takes the component walk.
var noOpenat2 atomic.Bool

// ForceWalk makes every later open take the component walk (on) or try
// openat2 again (off), and returns the previous setting. It exists for
// tests, which run the same attacks against both; it is process-wide.
func ForceWalk(on bool) (prev bool) { return noOpenat2.Swap(on) }

// openFD opens rel (clean, relative) below dirfd without following a symlink
// at any component and without leaving dirfd: openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or the component walk where openat2 is
// unavailable.
func openFD(dirfd int, rel string, flags int) (int, error) {
	if !noOpenat2.Load() {
		fd, err := openat2Beneath(dirfd, rel, flags)
		if !errors.Is(err, errNoOpenat2) {
			return fd, err
		}
		noOpenat2.Store(true)
	}
	return walkBeneath(dirfd, rel, flags)
}

var errNoOpenat2 = errors.New("openat2 unavailable")

func openat2Beneath(dirfd int, rel string, flags int) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		switch {
		case err == nil:
			return fd, nil
		case err == unix.EINTR:
			continue
		case err == unix.ENOSYS, err == unix.EPERM:
			return -1, errNoOpenat2
		}
		// EAGAIN (a rename raced a ".." lookup; our paths have none) fails
		// closed like every other error rather than being retried.
		return -1, classifyOpenError(err)
	}
}

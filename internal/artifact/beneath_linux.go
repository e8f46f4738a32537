package artifact

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once the kernel (before 5.6) or a seccomp filter refused
// openat2; from then on every open takes the component walk.
var noOpenat2 atomic.Bool

// openBeneath opens rel (clean, relative) below dir without following a
// symlink at any component and without leaving dir: openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or the component walk where openat2 is
// unavailable.
func openBeneath(dir *os.File, rel string, flags int) (*os.File, error) {
	if !noOpenat2.Load() {
		f, err := openat2Beneath(dir, rel, flags)
		if !errors.Is(err, errNoOpenat2) {
			return f, err
		}
		noOpenat2.Store(true)
	}
	return walkBeneath(dir, rel, flags)
}

var errNoOpenat2 = errors.New("openat2 unavailable")

func openat2Beneath(dir *os.File, rel string, flags int) (*os.File, error) {
	how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}
	defer runtime.KeepAlive(dir)
	for {
		fd, err := unix.Openat2(int(dir.Fd()), rel, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), rel), nil
		case err == unix.EINTR:
			continue
		case err == unix.ENOSYS, err == unix.EPERM:
			return nil, errNoOpenat2
		}
		// EAGAIN (a rename raced a ".." lookup; our paths have none) fails
		// closed like every other error rather than being retried.
		return nil, classifyOpenError(err)
	}
}

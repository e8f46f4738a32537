package sandbox

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeRangeCloexec is close_range(2)'s CLOSE_RANGE_CLOEXEC (Linux 5.11):
// mark the range close-on-exec instead of closing it.
const closeRangeCloexec = 1 << 2

// sealInherited marks every descriptor above the status pipe close-on-exec,
// so that none the launcher inherited reaches the target. Landlock checks a
// path when it is opened: a descriptor odek's own parent left open (a CI
// runner's, a make jobserver's, a shell's "exec 7>>file") keeps the rights
// it was opened with, and a command holding it could write outside the
// workspace or read a protected file. The Go runtime opens its own
// descriptors close-on-exec already, so marking them changes nothing.
func sealInherited() error {
	err := unix.CloseRange(StatusFD+1, math.MaxUint32, closeRangeCloexec)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("close_range: %w", err)
	}
	// Before Linux 5.11: each open descriptor, from /proc.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list inherited descriptors: %w", err)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= StatusFD {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return fmt.Errorf("close-on-exec fd %d: %w", fd, err)
		}
	}
	return nil
}

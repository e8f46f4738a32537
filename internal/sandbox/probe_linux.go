package sandbox

import (
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Probe asks the kernel what it offers. It costs two system calls.
func Probe() Support {
	var s Support
	if v, err := ll.LandlockGetABIVersion(); err == nil {
		s.LandlockABI = v
	}
	// PR_GET_SECCOMP answers only when the kernel has seccomp.
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err == nil {
		s.Seccomp = filterArch != 0
	}
	return s
}

func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

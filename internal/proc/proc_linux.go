package proc

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr: a group of its own; a launcher also gets SIGTERM when odek
// dies, so that it kills its tree instead of leaving it to init.
func sysProcAttr(launched bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if launched {
		a.Pdeathsig = syscall.SIGTERM
	}
	return a
}

// BecomeSubreaper makes the calling process the child subreaper of its
// descendants: an orphan anywhere below re-parents to it, not to init, and
// KillOrphans can find it.
func BecomeSubreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// SelfExe is the path that starts this process's own executable again:
// /proc/self/exe, the image the kernel runs, not the path it was started
// from. odek re-executes itself unconfined (the sandbox launcher, every
// sub-agent); where that path is writable for a sandboxed command (odek
// run from a checkout's bin/), a file renamed over it would run in its
// place, outside the sandbox.
func SelfExe() (string, error) { return "/proc/self/exe", nil }

//go:build !linux

package proc

import (
	"os"
	"syscall"
)

func sysProcAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// BecomeSubreaper does nothing outside Linux.
func BecomeSubreaper() error { return nil }

// SelfExe is this process's executable (os.Executable: there is no
// /proc/self/exe to start instead).
func SelfExe() (string, error) { return os.Executable() }

// ExecOnlySelf is SelfExe: only Linux makes a process started from an
// unreadable executable non-dumpable.
func ExecOnlySelf() (string, error) {
	self, err := SelfExe()
	if err != nil {
		return "", err
	}
	return self, ErrNotExecOnly
}

func isExecOnlySelf(string) bool { return false }

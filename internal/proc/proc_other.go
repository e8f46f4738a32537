//go:build !linux

package proc

import "syscall"

func sysProcAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// BecomeSubreaper does nothing outside Linux.
func BecomeSubreaper() error { return nil }

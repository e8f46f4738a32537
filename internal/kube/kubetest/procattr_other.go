//go:build !linux

package kubetest

import "syscall"

// componentAttr: its own process group. The plane runs on Linux only (its
// test node needs mount namespaces); elsewhere the package only compiles.
func componentAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

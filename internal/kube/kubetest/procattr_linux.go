package kubetest

import "syscall"

// componentAttr: its own process group, killed with the test binary.
func componentAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Command maxrss runs a command and writes its peak resident memory in KiB
// (wait4's ru_maxrss, which covers the children it reaped) to a file, then
// exits with the command's exit code:
//
//	maxrss OUT command args...
//
// A test cannot measure this itself: Go starts a child with vfork, and the
// kernel counts the starting process's own high-water mark into the child's
// ru_maxrss when the child execs. A test binary that has run other tests
// can be far larger than the command it measures; this small program is
// not.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: maxrss OUT command args...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "maxrss: no rusage")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], fmt.Appendf(nil, "%d\n", ru.Maxrss), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

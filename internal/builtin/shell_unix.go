//go:build unix

package builtin

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// runGroup runs bash -c in a new process group. Timeout or cancel kills the
// whole group; so does the end of the command, so a background job it left
// (sleep 100 &) dies with it instead of outliving the call.
func runGroup(ctx context.Context, s runSpec) runResult {
	tctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "bash", "-c", s.command)
	cmd.Dir, cmd.Env = s.dir, s.env
	// Our own pipe, not an io.Writer: Wait then returns when bash exits,
	// without waiting for a leftover job that still holds the output open.
	r, w, err := os.Pipe()
	if err != nil {
		return runResult{err: err}
	}
	defer r.Close()
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = shellWaitDelay
	err = cmd.Start()
	w.Close()
	if err != nil {
		return runResult{err: err}
	}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(s.out, r)
		close(copied)
	}()
	err = cmd.Wait()
	_ = killGroup(cmd)
	select {
	case <-copied:
	case <-time.After(shellWaitDelay): // a process that left the group still holds the pipe
		r.Close()
		<-copied
	}
	res := runResult{timedOut: errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil}
	switch {
	case err == nil:
	case errors.Is(err, exec.ErrWaitDelay): // exited; a leftover job held the output open
		res.code = cmd.ProcessState.ExitCode()
	default:
		res.code, res.err = exitCode(err)
	}
	return res
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func signalOf(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}

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

	"github.com/odek-run/odek/internal/proc"
)

// stopGrace is how long a timed-out command's launcher gets to kill its
// tree and say so before odek kills what it can find by pid.
const stopGrace = 2 * time.Second

// runGroup runs bash -c through proc: in a new process group and, with a
// sandbox policy, under the launcher, which kills every descendant (setsid
// and double-forked ones too) by pid when bash exits or the call times out.
// Without a policy the group is killed when bash exits, and so is every
// descendant still found below it.
func runGroup(ctx context.Context, s runSpec) runResult {
	tctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	// Our own pipe, not an io.Writer: the wait ends when bash's tree is
	// gone, without waiting for a leftover job that still holds the output.
	r, w, err := os.Pipe()
	if err != nil {
		return runResult{err: err}
	}
	defer r.Close()
	p, err := proc.Start(proc.Spec{Path: "bash", Args: []string{"-c", s.command}, Env: s.env, Dir: s.dir,
		Stdout: w, Stderr: w, Sandbox: s.sandbox})
	w.Close()
	if err != nil {
		return runResult{err: err}
	}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(s.out, r)
		close(copied)
	}()
	select {
	case <-p.Exited():
	case <-tctx.Done():
		p.Stop(stopGrace)
		<-p.Exited()
	}
	if s.sandbox == nil {
		p.Kill()
	}
	select {
	case <-copied:
	case <-time.After(shellWaitDelay): // a process that left the group still holds the pipe
		r.Close()
		<-copied
	}
	res := runResult{timedOut: errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil,
		contained: p.Contained()}
	res.code, res.err = exitCode(p.Wait())
	return res
}

func signalOf(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}

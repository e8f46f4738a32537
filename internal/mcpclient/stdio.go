package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/sandbox"
)

// Shutdown timings. Tests change them per Client through Options.timings,
// never here, so they can run in parallel.
const (
	// exitGrace is how long Close waits for a server to exit after stdin closes.
	exitGrace = 5 * time.Second
	// termGrace is how long SIGTERM gets before SIGKILL.
	termGrace = 500 * time.Millisecond
	// exitReportWait bounds how long a dead stdout waits for the exit status.
	exitReportWait = 2 * time.Second
	// interruptGrace is each step of CloseNow: after stdin closes, and after
	// SIGTERM, before the process group is killed.
	interruptGrace = 250 * time.Millisecond
)

// timings are the waits a test may shorten or widen for one Client; a zero
// field takes the default.
type timings struct {
	exit, term, interrupt, probe, request time.Duration
}

// or returns d, or def when d is zero.
func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// stdioTransport owns a server process and speaks newline-delimited JSON-RPC
// over its stdin/stdout. The pipes are our own os.Pipe pairs (not
// cmd.StdoutPipe) so Wait never races the reader, and closing our read ends
// unblocks the reader even if a grandchild keeps the write ends open.
type stdioTransport struct {
	name   string
	proc   *proc.Process
	stdin  *os.File
	stdout *os.File
	errR   *os.File
	lr     *lineReader
	sink   *stderrSink

	exited     chan struct{}
	waitErr    error
	stderrDone chan struct{}
	closing    atomic.Bool
	closeOnce  sync.Once
}

// startStdio starts the server through proc: its own process group and,
// with a policy, the sandbox launcher.
func startStdio(name string, cfg ServerConfig, env []string, pol *sandbox.Policy, limit *readLimit, sink *stderrSink) (*stdioTransport, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	p, err := proc.Start(proc.Spec{Path: cfg.Command, Args: cfg.Args, Env: env,
		Stdin: inR, Stdout: outW, Stderr: errW, Sandbox: pol})
	closeAll(inR, outW, errW) // the child holds its own copies now
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	t := &stdioTransport{
		name: name, proc: p, stdin: inW, stdout: outR, errR: errR,
		lr:     newLimitedLineReader(outR, limit),
		sink:   sink,
		exited: make(chan struct{}), stderrDone: make(chan struct{}),
	}
	live.add(t)
	go func() {
		t.waitErr = p.Wait()
		close(t.exited)
	}()
	go func() {
		sink.drain(errR)
		close(t.stderrDone)
	}()
	return t, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// send writes to the server's stdin. ctx is not needed: a line once written
// cannot be taken back (a timed-out request is cancelled with
// notifications/cancelled instead).
func (t *stdioTransport) send(_ context.Context, msg []byte, _ int64) error {
	if _, err := t.stdin.Write(msg); err != nil {
		if t.closing.Load() {
			return errClosed
		}
		return fmt.Errorf("write to server: %w", t.exitOr(err))
	}
	return nil
}

func (t *stdioTransport) recv() ([]byte, error) {
	line, err := t.lr.next()
	if err == nil {
		return line, nil
	}
	if t.closing.Load() {
		return nil, errClosed
	}
	var tooLarge *ResponseTooLargeError
	if errors.As(err, &tooLarge) {
		// Fail closed: the rest of the line is never read, so the server is
		// useless from here on; stop it before it fills the pipe.
		t.signal(syscall.SIGKILL)
		return nil, err
	}
	return nil, t.exitOr(err)
}

// exitOr explains a broken pipe by the process's exit status and stderr tail
// when the process is gone (or goes within exitReportWait).
func (t *stdioTransport) exitOr(err error) error {
	timer := time.NewTimer(exitReportWait)
	defer timer.Stop()
	select {
	case <-t.exited:
	case <-timer.C:
		if errors.Is(err, io.EOF) {
			return &ExitError{Status: "closed its stdout but is still running", StderrTail: t.sink.tailString()}
		}
		return err
	}
	select { // let the last stderr lines land in the tail
	case <-t.stderrDone:
	case <-timer.C:
	}
	status := "exit status 0"
	if t.waitErr != nil {
		status = t.waitErr.Error()
	}
	return &ExitError{Status: status, StderrTail: t.sink.tailString()}
}

// signal reaches the server's whole process group; SIGKILL also every
// descendant that left it.
func (t *stdioTransport) signal(sig syscall.Signal) {
	if sig == syscall.SIGKILL {
		t.proc.Kill()
		return
	}
	_ = t.proc.Signal(sig)
}

// close: stdin EOF asks the server to exit; it gets g.exit, then SIGTERM and
// g.term, then SIGKILL. The group is killed in any case so no grandchild
// survives.
func (t *stdioTransport) close(g grace) error {
	t.closeOnce.Do(func() {
		t.closing.Store(true)
		_ = t.stdin.Close()
		if !waitFor(t.exited, g.exit) {
			t.proc.Terminate(g.term)
			<-t.exited
		}
		t.signal(syscall.SIGKILL)
		live.remove(t)
		waitFor(t.stderrDone, time.Second)
		closeAll(t.stdout, t.errR)
		<-t.stderrDone
	})
	return nil
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-timer.C:
		return false
	}
}

package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/telemetry"
)

// Bounds of one handler's run.
const (
	// maxOutputBytes of stdout and of stderr are kept; the rest is read
	// and dropped, so a hook that prints without end neither fills odek's
	// memory nor blocks on a full pipe.
	maxOutputBytes = 1 << 20
	// stopGrace is how long a timed-out hook's launcher gets to kill its
	// tree before odek kills what it can find.
	stopGrace = 2 * time.Second
	// pipeWait is how long odek waits, once the hook is gone, for a
	// process it left behind to let go of its output.
	pipeWait = 250 * time.Millisecond
)

// outcome is what one handler did.
type outcome struct {
	e        entry
	exit     int // -1 when it did not exit by itself
	timedOut bool
	err      error // it could not run, was killed, or answered what odek cannot read
	stdout   []byte
	stderr   []byte
	ans      answer
	isJSON   bool
	dur      time.Duration
	verdict  string // hook_completed's decision
	tampered bool   // its script changed during the run: not run, and it fails closed
}

// failed reports a non-blocking error: the handler did not give an answer
// odek can act on (exit code 2 is an answer).
func (o *outcome) failed() bool { return o.err != nil || (o.exit != 0 && o.exit != 2) }

// runOne runs one handler and tells the events about it.
func (r *Runner) runOne(ctx context.Context, in Input, e entry, body []byte) outcome {
	r.emit(events.HookStarted, in, e, nil)
	ctx, span := r.o.Telemetry.StartHook(ctx, telemetry.HookInfo{Event: string(in.Event), Type: e.h.Type, Origin: origin(e)})
	start := r.o.Now()
	var o outcome
	switch path := changed(e.pins); {
	case path != "":
		o = outcome{exit: -1, err: &tamperedError{path}, tampered: true}
	case e.h.Type == TypeHTTP:
		o = r.post(ctx, e, body)
	default:
		o = r.command(ctx, e, body)
	}
	o.e, o.dur = e, r.o.Now().Sub(start)
	if o.err == nil && o.exit == 0 {
		o.ans, o.isJSON, o.err = parseAnswer(o.stdout)
	}
	o.verdict = verdict(in.Event, &o)
	span.EndHook(telemetry.HookResult{Decision: o.verdict, ExitCode: o.exit, HasExit: o.exit >= 0, TimedOut: o.timedOut, Err: o.hookErr()})
	r.count(&o)
	d := map[string]any{"decision": o.verdict, "duration_ms": o.dur.Milliseconds()}
	if o.exit >= 0 {
		d["exit_code"] = o.exit
	}
	if o.timedOut {
		d["timed_out"] = true
	}
	if o.err != nil {
		d["error"] = oneLine(o.err.Error(), 240)
	}
	r.emit(events.HookCompleted, in, e, d)
	return o
}

func (r *Runner) count(o *outcome) {
	r.counts.run.Add(1)
	switch {
	case o.timedOut:
		r.counts.timedOut.Add(1)
		r.counts.failed.Add(1)
	case o.failed():
		r.counts.failed.Add(1)
	}
	if o.verdict == "block" || o.verdict == "deny" || o.verdict == "ask" {
		r.counts.blocked.Add(1)
	}
}

// emit sends hook_started or hook_completed with the handler's identity.
func (r *Runner) emit(t events.Type, in Input, e entry, d map[string]any) {
	if !r.o.Events.Enabled() {
		return
	}
	if d == nil {
		d = map[string]any{}
	}
	d["event"], d["matcher"], d["hook_type"], d["command"] = string(in.Event), e.group.Matcher, e.h.Type, summary(e.h)
	d["origin"] = origin(e)
	tool := ""
	if toolEvent(in.Event) {
		tool = in.Tool
	}
	r.o.Events.Emit(t, in.Iteration, tool, d)
}

// origin says whose config the handler comes from.
func origin(e entry) string {
	if e.project {
		return "project"
	}
	return "operator"
}

// hookErr is the handler's failure for its span: its error, or a
// non-zero exit other than 2 (which is an answer, not a failure).
func (o *outcome) hookErr() error {
	if o.err != nil || !o.failed() {
		return o.err
	}
	return fmt.Errorf("exited %d", o.exit)
}

// summary names a handler in events and warnings: its command on one line,
// or its URL without query, at most 200 bytes.
func summary(h Handler) string {
	if h.Type == TypeHTTP {
		u, _, _ := strings.Cut(h.URL, "?")
		return oneLine(u, 200)
	}
	return oneLine(h.Command, 200)
}

// command runs a command hook: bash -c in its own process group (through
// the sandbox launcher for a project hook), the event's JSON on stdin,
// killed at its timeout or when ctx ends.
func (r *Runner) command(ctx context.Context, e entry, body []byte) outcome {
	tctx, cancel := context.WithTimeout(ctx, e.h.Timeout)
	defer cancel()
	var p pipes
	if err := p.open(); err != nil {
		return outcome{exit: -1, err: err}
	}
	defer p.close()
	spec := proc.Spec{Path: "bash", Args: []string{"-c", e.h.Command}, Env: telemetry.Environ(ctx, r.env(e)), Dir: r.o.Dir,
		Stdin: p.inR, Stdout: p.outW, Stderr: p.errW}
	if e.project {
		spec.Sandbox = r.o.Sandbox
	}
	ps, err := startDirect(spec, e.h.Command, r.o.Dir)
	if err != nil {
		ps, err = proc.Start(spec) // bash -c: what the command line means
	}
	p.closeChildEnds()
	if err != nil {
		return outcome{exit: -1, err: fmt.Errorf("cannot start: %w", err)}
	}
	go func() { _, _ = p.inW.Write(body); _ = p.inW.Close() }() // a hook that never reads its stdin must not hold odek
	var stdout, stderr capped
	copied := p.copy(&stdout, &stderr)
	stopped := false
	select {
	case <-ps.Exited():
	case <-tctx.Done():
		stopped = true
		ps.Stop(stopGrace)
		<-ps.Exited()
	}
	if spec.Sandbox == nil {
		ps.Kill() // what it left in its group
	}
	p.drain(copied)
	o := outcome{stdout: stdout.buf.Bytes(), stderr: stderr.buf.Bytes()}
	o.exit = exitCode(ps.Wait())
	switch {
	case stopped && ctx.Err() == nil:
		o.exit, o.timedOut, o.err = -1, true, fmt.Errorf("killed at its timeout of %s", e.h.Timeout)
	case stopped:
		o.exit, o.err = -1, fmt.Errorf("stopped: %w", context.Cause(ctx))
	case o.exit < 0:
		o.err = errors.New("killed by a signal")
	}
	return o
}

// startDirect starts a command line that is one plain command without bash
// (directArgv); an error means it was not started.
func startDirect(spec proc.Spec, command, dir string) (*proc.Process, error) {
	argv, ok := directArgv(command, dir, spec.Env)
	if !ok {
		return nil, errNotDirect
	}
	spec.Path, spec.Args = argv[0], argv[1:]
	return proc.Start(spec)
}

// env is a command hook's environment: its origin's, plus the project
// directory under Claude Code's name and odek's.
func (r *Runner) env(e entry) []string {
	base := r.o.OperatorEnv
	if e.project {
		base = r.o.ProjectEnv
	}
	out := make([]string, 0, len(base)+2)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "CLAUDE_PROJECT_DIR=") && !strings.HasPrefix(kv, "ODEK_PROJECT_DIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "CLAUDE_PROJECT_DIR="+r.o.Dir, "ODEK_PROJECT_DIR="+r.o.Dir)
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode() // -1 when a signal ended it
	}
	return -1
}

// pipes are a command hook's stdin, stdout and stderr.
type pipes struct {
	inR, inW, outR, outW, errR, errW *os.File
}

func (p *pipes) open() error {
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		return err
	}
	p.errR, p.errW, err = os.Pipe()
	return err
}

// closeChildEnds closes the ends the child holds now.
func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.inR, p.outW, p.errW} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// copy reads stdout and stderr into their buffers; the channel is closed
// when both are at their end.
func (p *pipes) copy(stdout, stderr *capped) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		errDone := make(chan struct{})
		go func() { _, _ = io.Copy(stderr, p.errR); close(errDone) }()
		_, _ = io.Copy(stdout, p.outR)
		<-errDone
		close(done)
	}()
	return done
}

// drain waits for the output, for at most pipeWait once the hook is gone: a
// process it started and left running may hold the pipes.
func (p *pipes) drain(copied <-chan struct{}) {
	select {
	case <-copied:
	case <-time.After(pipeWait):
		_ = p.outR.Close()
		_ = p.errR.Close()
		<-copied
	}
}

func (p *pipes) close() {
	for _, f := range []*os.File{p.inR, p.inW, p.outR, p.outW, p.errR, p.errW} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// capped keeps the first maxOutputBytes written to it and counts the rest.
type capped struct {
	buf     bytes.Buffer
	dropped int64
}

func (c *capped) Write(b []byte) (int, error) {
	room := maxOutputBytes - c.buf.Len()
	if room > len(b) {
		room = len(b)
	}
	if room > 0 {
		c.buf.Write(b[:room])
	}
	c.dropped += int64(len(b) - max(room, 0))
	return len(b), nil
}

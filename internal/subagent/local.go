package subagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

// defaultGrace is how long a cancelled child gets between SIGTERM and
// SIGKILL to write its result.
const defaultGrace = 3 * time.Second

// How much of a child's stderr is kept for error messages: its start and
// its end.
const (
	stderrHeadBytes = 512
	stderrTailBytes = 1024
)

// LocalRunner starts children as local processes of the odek binary, each
// in its own process group.
type LocalRunner struct {
	// Path is the odek executable; "" means the running one
	// (proc.SelfExe: /proc/self/exe on Linux, so that nothing renamed
	// over odek's path since it started runs as the child).
	Path string
	// Grace is the time between SIGTERM and SIGKILL on cancellation; 0
	// means defaultGrace.
	Grace time.Duration
	// KeyTimeout bounds the wait for a child to ask for its key; 0 means
	// wire.KeyTimeout.
	KeyTimeout time.Duration

	plain atomic.Bool // the execute-only copy would not start: use SelfExe
}

// Start runs `odek subagent --task <file> --quiet --stream <args…>` through
// proc, in a new process group, and hands it spec.Key on descriptor 3 (the
// child asks for it first thing: Start returns once it has it, or with the
// reason it could not, the child stopped). Cancelling ctx sends SIGTERM to
// the group and, after Grace, kills the group and every descendant by pid.
// Standard input is /dev/null.
func (r *LocalRunner) Start(ctx context.Context, spec Spec) (Process, error) {
	var offer *wire.KeyOffer
	var extra []*os.File
	if spec.Key != "" {
		o, err := wire.NewKeyOffer()
		if err != nil {
			return nil, fmt.Errorf("subagent: %w", err)
		}
		defer o.Close()
		offer, extra = o, []*os.File{o.ChildEnd()}
	}
	p, err := r.startProcess(spec, extra)
	if err != nil {
		return nil, err
	}
	if offer != nil {
		if err := offer.Give(ctx, p.PID(), spec.Key, r.keyTimeout()); err != nil {
			p.Kill()
			_ = p.Wait()
			return nil, fmt.Errorf("subagent: %w", err)
		}
	}
	go p.cancelOn(ctx, r.grace())
	return p, nil
}

// startProcess starts the child with its stdout and stderr piped to this
// process and extra as its descriptors 3, ….
func (r *LocalRunner) startProcess(spec Spec, extra []*os.File) (*localProcess, error) {
	path, copied, err := r.path()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("subagent: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(outR, outW)
		return nil, fmt.Errorf("subagent: %w", err)
	}
	args := append([]string{"subagent", "--task", spec.TaskFile, "--quiet", "--stream"}, spec.Args...)
	pr, err := r.exec(proc.Spec{Path: path, Args: args, Env: spec.Env, Dir: spec.Dir, Stdout: outW, Stderr: errW, ExtraFiles: extra}, copied)
	closeFiles(outW, errW) // the child holds its own copies
	if err != nil {
		closeFiles(outR, errR)
		return nil, fmt.Errorf("subagent: start %s: %w", path, err)
	}
	p := &localProcess{proc: pr, stdout: outR, exited: make(chan struct{}), stderrDone: make(chan struct{})}
	go p.drainStderr(errR)
	go p.wait()
	return p, nil
}

// exec starts ps. When ps.Path is the execute-only copy (copied) and the
// kernel or its policy will not run it (a memfd: vm.memfd_noexec, an LSM),
// it runs odek's own executable instead, and does from then on.
func (r *LocalRunner) exec(ps proc.Spec, copied bool) (*proc.Process, error) {
	pr, err := proc.Start(ps)
	if !copied || !(errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOEXEC)) {
		return pr, err
	}
	r.plain.Store(true)
	if ps.Path, _, err = r.path(); err != nil {
		return nil, err
	}
	return proc.Start(ps)
}

// path is the executable to start: Path, else odek's own execute-only copy
// (proc.ExecOnlySelf: the child is non-dumpable from its first instruction
// where the kernel allows), else odek's own executable. copied says it is
// the copy.
func (r *LocalRunner) path() (path string, copied bool, err error) {
	if r.Path != "" {
		return r.Path, false, nil
	}
	self, err := proc.SelfExe()
	if err != nil {
		return "", false, fmt.Errorf("subagent: find the odek executable: %w", err)
	}
	if !r.plain.Load() {
		if p, err := proc.ExecOnlySelf(); err == nil && p != self {
			return p, true, nil
		}
	}
	return self, false, nil
}

// keyTimeout is KeyTimeout, or wire.KeyTimeout when it is unset.
func (r *LocalRunner) keyTimeout() time.Duration {
	if r.KeyTimeout <= 0 {
		return wire.KeyTimeout
	}
	return r.KeyTimeout
}

// grace is Grace, or defaultGrace when it is unset.
func (r *LocalRunner) grace() time.Duration {
	if r.Grace <= 0 {
		return defaultGrace
	}
	return r.Grace
}

// cancelOn stops the child when ctx ends: SIGTERM to its group, then after
// grace a kill of the group and every descendant.
func (p *localProcess) cancelOn(ctx context.Context, grace time.Duration) {
	select {
	case <-p.exited:
		return
	case <-ctx.Done():
	}
	p.proc.Terminate(grace)
}

type localProcess struct {
	proc   *proc.Process
	stdout *os.File

	exited     chan struct{}
	waitErr    error
	stderrDone chan struct{}
	closeOnce  sync.Once

	mu    sync.Mutex
	head  []byte // the first stderr bytes (a panic's message)
	tail  []byte // the last ones (an error message)
	total int
}

func (p *localProcess) PID() int          { return p.proc.Pid() }
func (p *localProcess) Stdout() io.Reader { return p.stdout }
func (p *localProcess) Kill()             { p.proc.Kill() }

// wait reaps the child, then kills whatever is left of its group, and gives
// the reader a moment to drain stdout before closing it, so a grandchild that
// kept the pipe open cannot block the parent.
func (p *localProcess) wait() {
	p.waitErr = p.proc.Wait()
	p.Kill()
	close(p.exited)
	time.AfterFunc(2*time.Second, func() { p.closeStdout() })
}

func (p *localProcess) closeStdout() { p.closeOnce.Do(func() { _ = p.stdout.Close() }) }

// Wait implements Process.
func (p *localProcess) Wait() error {
	<-p.exited
	p.closeStdout()
	select {
	case <-p.stderrDone:
	case <-time.After(time.Second):
	}
	return p.waitErr
}

func (p *localProcess) drainStderr(r *os.File) {
	defer close(p.stderrDone)
	defer r.Close()
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if room := stderrHeadBytes - len(p.head); room > 0 {
				p.head = append(p.head, buf[:min(n, room)]...)
			}
			p.total += n
			p.tail = append(p.tail, buf[:n]...)
			if len(p.tail) > stderrTailBytes {
				p.tail = append(p.tail[:0], p.tail[len(p.tail)-stderrTailBytes:]...)
			}
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// StderrTail implements Process: the child's stderr on one line, or when it
// was long, its start (where a panic says what happened) and its end (where
// an error message is).
func (p *localProcess) StderrTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Sanitised (controls, escapes and bidi marks become spaces), then its
	// runs of white space collapsed.
	oneLine := func(b []byte) string {
		return strings.Join(strings.Fields(untrusted.OneLine(string(b), 0)), " ")
	}
	if p.total <= stderrHeadBytes {
		return untrusted.OneLine(oneLine(p.head), stderrHeadBytes)
	}
	tail := oneLine(p.tail)
	if r := []rune(tail); len(r) > 200 {
		tail = "…" + string(r[len(r)-200:])
	}
	return untrusted.OneLine(oneLine(p.head), 200) + " … " + tail
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

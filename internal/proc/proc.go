package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/odek-run/odek/internal/sandbox"
)

// Spec is one process to start.
type Spec struct {
	Path string   // program; looked up in PATH when it has no slash
	Args []string // arguments after the program name
	Env  []string // the whole environment
	Dir  string
	// Stdin, Stdout and Stderr default to /dev/null (nil).
	Stdin, Stdout, Stderr *os.File
	// ExtraFiles become fds 3, 4, … (not with Sandbox: fd 3 is the
	// launcher's status pipe).
	ExtraFiles []*os.File
	// Sandbox, when set, runs the process through the launcher under it
	// (mode off still gets the launcher's subreaper cleanup).
	Sandbox *sandbox.Policy
}

// Process is one started process.
type Process struct {
	cmd     *exec.Cmd
	status  *bufio.Reader // the launcher's status pipe; nil without a launcher
	statusF *os.File

	exited   chan struct{}
	readDone chan struct{} // Start is done reading "ready" from the status pipe
	waitErr  error
	done     bool // the launcher reported every descendant gone
}

var launcher struct {
	mu   sync.Mutex
	path string
}

// SetLauncher names the executable that runs sandbox.Main when started
// with sandbox.LauncherArg (odek's own binary; a test binary whose
// TestMain calls sandbox.Main).
func SetLauncher(path string) {
	launcher.mu.Lock()
	launcher.path = path
	launcher.mu.Unlock()
}

// Launcher is the executable SetLauncher named ("" = none).
func Launcher() string {
	launcher.mu.Lock()
	defer launcher.mu.Unlock()
	return launcher.path
}

var beforeStart atomic.Pointer[func()]

// BeforeStart has every Start call wait first for f to return: odek holds
// its first process until its Ctrl-C and SIGTERM handler is in place (set
// up beside its start-up), so that no signal can end odek by default while
// a child it would have to kill is running.
func BeforeStart(f func()) { beforeStart.Store(&f) }

// Start starts s. With a Sandbox it returns once the launcher reports that
// the target runs under the policy, or with the launcher's error.
func Start(s Spec) (*Process, error) {
	if f := beforeStart.Load(); f != nil {
		(*f)()
	}
	noteLimits()
	path, args := s.Path, s.Args
	var statusR, statusW *os.File
	var launchFiles []*os.File
	if s.Sandbox != nil {
		self := Launcher()
		if self == "" {
			return nil, ErrNoLauncher
		}
		if len(s.ExtraFiles) > 0 {
			return nil, errors.New("proc: ExtraFiles cannot be passed through the sandbox launcher")
		}
		l, err := sandbox.Command(self, *s.Sandbox, s.Path, s.Args...)
		if err != nil {
			return nil, err
		}
		path, args, launchFiles = l.Argv[0], l.Argv[1:], l.Files
		if statusR, statusW, err = os.Pipe(); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(path, args...)
	if self, _ := SelfExe(); path == self || isExecOnlySelf(path) {
		cmd.Args[0] = os.Args[0] // the name odek was started as, not /proc/self/exe
	}
	cmd.Env, cmd.Dir = s.Env, s.Dir
	if s.Sandbox != nil {
		env := s.Env
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = sandbox.LauncherEnv(env) // the launcher's loader sees none of the target's LD_*
	}
	if s.Stdin != nil {
		cmd.Stdin = s.Stdin
	}
	if s.Stdout != nil {
		cmd.Stdout = s.Stdout
	}
	if s.Stderr != nil {
		cmd.Stderr = s.Stderr
	}
	cmd.ExtraFiles = s.ExtraFiles
	if statusW != nil {
		cmd.ExtraFiles = append([]*os.File{statusW}, launchFiles...) // fds 3, 4, …
	}
	cmd.SysProcAttr = sysProcAttr(s.Sandbox != nil)
	p := &Process{cmd: cmd, exited: make(chan struct{}), readDone: make(chan struct{}), statusF: statusR}
	if statusR != nil {
		p.status = bufio.NewReader(statusR)
	}
	err := startTracked(p)
	if statusW != nil {
		statusW.Close()
	}
	if err != nil {
		if statusR != nil {
			statusR.Close()
		}
		return nil, err
	}
	go p.wait()
	if p.status != nil {
		err := p.awaitReady()
		close(p.readDone)
		if err != nil {
			p.Kill()
			_ = p.Wait()
			return nil, err
		}
	} else {
		close(p.readDone)
	}
	return p, nil
}

func (p *Process) awaitReady() error {
	line, err := p.status.ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case line == sandbox.StatusReady:
		return nil
	case strings.HasPrefix(line, "error: "):
		return fmt.Errorf("%w: %s", sandbox.ErrLauncher, strings.TrimPrefix(line, "error: "))
	case err != nil:
		return fmt.Errorf("%w: exited before the command started: %v", sandbox.ErrLauncher, err)
	}
	return fmt.Errorf("%w: unexpected status %q", sandbox.ErrLauncher, line)
}

func (p *Process) wait() {
	p.waitErr = p.cmd.Wait()
	<-p.readDone
	if p.status != nil {
		rest, _ := p.status.ReadString('\n')
		p.done = strings.TrimSpace(rest) == sandbox.StatusDone
		p.statusF.Close()
	}
	untrack(p)
	close(p.exited)
}

// Pid is the process's pid (the launcher's, with a sandbox).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the process's whole group.
func (p *Process) Signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// Kill kills the process's group and every descendant it has, by pid. The
// descendants are found first: once the process is dead they re-parent
// away and can no longer be told from anyone else's. So once the process
// has been reaped only its group is killed: a scan of /proc would find
// nothing of its own (its orphans went to the subreaper, KillOrphans' to
// kill), only whoever was given its pid since.
func (p *Process) Kill() {
	var tree []int
	select {
	case <-p.exited:
	default:
		tree = descendants(p.cmd.Process.Pid)
	}
	_ = p.Signal(syscall.SIGKILL)
	for _, d := range tree {
		_ = syscall.Kill(d, syscall.SIGKILL)
	}
}

// Stop ends a command at once (a cancelled shell call): a launcher is told
// to kill its tree (SIGTERM to it alone) and gets grace to report that it
// did; anything else, and a launcher that did not make it, is killed with
// its tree.
func (p *Process) Stop(grace time.Duration) {
	if p.status == nil {
		p.Kill()
		return
	}
	p.terminate(func() error { return p.cmd.Process.Signal(syscall.SIGTERM) }, grace)
}

// Terminate asks a program to end (an MCP server that stayed after its
// stdin closed, a cancelled sub-agent): SIGTERM to its whole group, grace
// for it to exit, then Kill. It does not wait for the exit after a kill.
func (p *Process) Terminate(grace time.Duration) {
	p.terminate(func() error { return p.Signal(syscall.SIGTERM) }, grace)
}

// terminate is the one stop sequence, Stop's and Terminate's: ask, wait up
// to grace for the exit, then kill the tree; after an exit within grace,
// what is left of the group is killed.
func (p *Process) terminate(ask func() error, grace time.Duration) {
	_ = ask()
	if waitFor(p.exited, grace) {
		_ = p.Signal(syscall.SIGKILL)
		return
	}
	p.Kill()
}

// Exited is closed once the process has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Wait waits for the process to exit and returns its exit error, as
// exec.Cmd.Wait does.
func (p *Process) Wait() error {
	<-p.exited
	return p.waitErr
}

// State is the exit state once Exited is closed.
func (p *Process) State() *os.ProcessState { return p.cmd.ProcessState }

// Contained reports, once Exited is closed, whether the launcher saw every
// descendant gone before it exited (false without a launcher).
func (p *Process) Contained() bool {
	select {
	case <-p.exited:
		return p.done
	default:
		return false
	}
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

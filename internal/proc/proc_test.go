package proc_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/sandbox"
)

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// exitsWithin waits for pid (not our child, so no wait4) to exit, for at
// most d: a pidfd becomes readable when the process ends, so the wait is for
// that event, not a poll of /proc.
func exitsWithin(t *testing.T, pid int, d time.Duration) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return true
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(d.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("poll pidfd %d: %v", pid, err)
		}
		return n > 0 || !alive(pid)
	}
}

func waitPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return pid
			}
		}
		time.Sleep(5 * time.Millisecond) // polls for the file the child writes
	}
	t.Fatalf("%s never appeared", path)
	return 0
}

// TestLauncherReapsTree: through the launcher (sandbox off: only its
// subreaper part), a setsid grandchild dies when the target exits, and
// Contained says so.
func TestLauncherReapsTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "setsid sh -c 'echo $$ > g.pid; exec sleep 300' & while [ ! -s g.pid ]; do sleep 0.01; done"},
		Dir: dir, Env: os.Environ(), Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}})
	if err != nil {
		t.Fatal(err)
	}
	if err := waitFor(t, p); err != nil {
		t.Fatal(err)
	}
	if !p.Contained() {
		t.Error("the launcher did not report the tree gone")
	}
	if pid := waitPid(t, filepath.Join(dir, "g.pid")); alive(pid) {
		t.Errorf("setsid grandchild %d survived", pid)
	}
}

// TestStopKillsTree: Stop asks the launcher to kill the tree of a target
// that would run for minutes.
func TestStopKillsTree(t *testing.T) {
	dir := t.TempDir()
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "setsid sh -c 'echo $$ > g.pid; exec sleep 300' & sleep 300"},
		Dir: dir, Env: os.Environ(), Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}})
	if err != nil {
		t.Fatal(err)
	}
	pid := waitPid(t, filepath.Join(dir, "g.pid"))
	p.Stop(5 * time.Second)
	<-p.Exited()
	if !p.Contained() {
		t.Error("the launcher did not report the tree gone")
	}
	if alive(pid) {
		t.Errorf("grandchild %d survived Stop", pid)
	}
}

// TestLauncherErrors: a policy the launcher refuses and a program it
// cannot find fail Start with the launcher's own words: its status line's
// reason, not the line itself as an unexpected status.
func TestLauncherErrors(t *testing.T) {
	for _, c := range []struct {
		spec proc.Spec
		want string
	}{
		{proc.Spec{Path: "no-such-program-odek", Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}}, "no-such-program-odek"},
		{proc.Spec{Path: "true", Sandbox: &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Workspace: "relative"}}, "not an absolute path"},
		{proc.Spec{Path: "true", ExtraFiles: []*os.File{os.Stdin}, Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}}, "ExtraFiles"},
	} {
		_, err := proc.Start(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "error: ") {
			t.Errorf("%+v: got %v, want %q", c.spec, err, c.want)
		}
	}
}

func TestNoLauncher(t *testing.T) {
	exe := proc.Launcher()
	proc.SetLauncher("")
	defer proc.SetLauncher(exe)
	if _, err := proc.Start(proc.Spec{Path: "true", Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}}); !errors.Is(err, proc.ErrNoLauncher) {
		t.Fatalf("got %v", err)
	}
}

// TestKillAll kills every live process with its tree, without waiting.
func TestKillAll(t *testing.T) {
	dir := t.TempDir()
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "sh -c 'echo $$ > c.pid; exec sleep 300' & wait"}, Dir: dir, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	pid := waitPid(t, filepath.Join(dir, "c.pid"))
	if n := proc.KillAll(); n < 1 {
		t.Errorf("KillAll = %d", n)
	}
	err = waitFor(t, p)
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) {
		t.Errorf("Wait = %v, want a killed process", err)
	}
	if !exitsWithin(t, pid, 5*time.Second) {
		t.Errorf("child %d survived KillAll", pid)
	}
}

// TestKillOrphans: with the test process as subreaper, an orphan of a
// process that was killed before it could clean up re-parents here and is
// killed by pid.
func TestKillOrphans(t *testing.T) {
	if err := proc.BecomeSubreaper(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "setsid sh -c 'echo $$ > o.pid; exec sleep 300' & exit 0"}, Dir: dir, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	_ = waitFor(t, p)
	pid := waitPid(t, filepath.Join(dir, "o.pid"))
	if !alive(pid) {
		t.Fatal("the orphan is already gone; nothing to test")
	}
	if n := proc.KillOrphans(); n < 1 {
		t.Errorf("KillOrphans = %d", n)
	}
	if alive(pid) || syscall.Kill(pid, 0) == nil {
		t.Errorf("orphan %d survived KillOrphans", pid)
	}
}

// TestKillAfterExitKillsGroup: a process that exited and was reaped left
// a child in its group; Kill (which then skips the scan for descendants)
// still kills that child through the group.
func TestKillAfterExitKillsGroup(t *testing.T) {
	dir := t.TempDir()
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "sh -c 'echo $$ > c.pid; exec sleep 300' & while [ ! -s c.pid ]; do sleep 0.01; done"},
		Dir: dir, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	_ = waitFor(t, p)
	<-p.Exited()
	pid := waitPid(t, filepath.Join(dir, "c.pid"))
	if !alive(pid) {
		t.Fatal("the child is already gone; nothing to test")
	}
	p.Kill()
	if !exitsWithin(t, pid, 5*time.Second) {
		t.Errorf("child %d in the exited process's group survived Kill", pid)
	}
}

// TestBeforeStartHoldsTheStart: Start waits for BeforeStart's function
// before the process exists, and starts it once the function returns.
func TestBeforeStartHoldsTheStart(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	proc.BeforeStart(func() {
		once.Do(func() { close(entered) })
		<-release
	})
	defer proc.BeforeStart(func() {})
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	started := make(chan error, 1)
	go func() {
		p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "echo > started"}, Dir: dir, Env: os.Environ()})
		if err == nil {
			err = p.Wait()
		}
		started <- err
	}()
	select {
	case <-entered:
	case err := <-started:
		t.Fatalf("Start returned (%v) without calling BeforeStart's function", err)
	}
	select {
	case err := <-started:
		t.Fatalf("Start returned (%v) while BeforeStart's function had not", err)
	default:
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the process ran while BeforeStart's function had not returned")
	}
	close(release)
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the process did not run once released: %v", err)
	}
}

// TestTerminate: a program that ends on SIGTERM gets the chance (it dies
// of SIGTERM, not of the kill); one that ignores it is killed after the
// grace, with its group.
func TestTerminate(t *testing.T) {
	for _, c := range []struct {
		name, script string
		want         syscall.Signal
	}{
		{"ends on SIGTERM", "echo $$ > p.pid; exec sleep 300", syscall.SIGTERM},
		{"ignores SIGTERM", "trap '' TERM; echo $$ > p.pid; exec sleep 300", syscall.SIGKILL},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", c.script}, Dir: dir, Env: os.Environ()})
			if err != nil {
				t.Fatal(err)
			}
			waitPid(t, filepath.Join(dir, "p.pid")) // the trap is in place
			p.Terminate(200 * time.Millisecond)
			<-p.Exited()
			ws, ok := p.State().Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != c.want {
				t.Fatalf("ended by %v, want %v", p.State(), c.want)
			}
		})
	}
}

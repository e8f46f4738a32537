package proc_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/sandbox"
)

// lines starts reading r's lines; next returns the next one, failing the
// test when the writers are gone first or after limit (a broken promise
// must fail the test, not hang it).
func lines(t *testing.T, r io.Reader) func() string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			ch <- strings.TrimSuffix(line, "\n")
		}
	}()
	return func() string {
		t.Helper()
		select {
		case line, ok := <-ch:
			if !ok {
				t.Fatal("the output ended before the line the test waits for")
			}
			return line
		case <-time.After(limit):
			t.Fatalf("no line within %v", limit)
		}
		return ""
	}
}

// limit bounds every wait of these tests for an event that a broken
// promise would never send.
const limit = 60 * time.Second

// pipe is an os.Pipe closed at the end of the test.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// waitFor is p.Wait bounded by limit: a process a broken Kill left
// running fails the test (and is killed by its pid) instead of holding
// it until the runner's timeout.
func waitFor(t *testing.T, p *proc.Process) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
	}
	t.Errorf("process %d still running after %v", p.Pid(), limit)
	_ = syscall.Kill(p.Pid(), syscall.SIGKILL)
	select {
	case err := <-done:
		return err
	case <-time.After(limit): // Wait itself is stuck (its status pipe never ends)
		return errors.New("Wait did not return after the process was killed")
	}
}

// pidLine parses a line that is a pid and has the pid killed at cleanup.
func pidLine(t *testing.T, line string) int {
	t.Helper()
	pid, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("want a pid, got %q", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// deepTree is a script that starts a chain of two setsid descendants
// (each the leader of a session of its own, out of the starter's process
// group), prints their pids, and then waits.
const deepTree = `setsid sh -c 'setsid sh -c "echo \$\$; exec sleep 300" & echo $$; exec sleep 300' &
wait`

// TestKillReachesEveryDescendant: Kill without a launcher kills the
// process and every descendant by pid, those that left its group and
// session (setsid, two levels down) included.
func TestKillReachesEveryDescendant(t *testing.T) {
	t.Parallel()
	r, w := pipe(t)
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", deepTree}, Env: os.Environ(), Stdout: w})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	next := lines(t, r)
	pids := []int{pidLine(t, next()), pidLine(t, next())}
	p.Kill()
	_ = waitFor(t, p)
	for _, pid := range pids {
		if !exitsWithin(t, pid, limit) {
			t.Errorf("descendant %d survived Kill", pid)
		}
	}
}

// TestKillOrphansSparesLiveProcesses: KillOrphans kills the orphans
// re-parented to this process, and no process Start started that still
// runs: those are their callers' to stop.
func TestKillOrphansSparesLiveProcesses(t *testing.T) {
	if err := proc.BecomeSubreaper(); err != nil {
		t.Skip(err)
	}
	proc.KillOrphans() // what earlier tests' killed trees left to this process
	live, err := proc.Start(proc.Spec{Path: "sleep", Args: []string{"300"}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { live.Kill(); _ = waitFor(t, live) }()
	r, w := pipe(t)
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "setsid sleep 300 & echo $!"}, Env: os.Environ(), Stdout: w})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	orphan := pidLine(t, lines(t, r)())
	_ = waitFor(t, p)
	if n := proc.KillOrphans(); n != 1 {
		t.Errorf("KillOrphans = %d, want 1 (the orphan alone)", n)
	}
	if alive(orphan) {
		t.Errorf("orphan %d survived", orphan)
	}
	select {
	case <-live.Exited():
		t.Error("KillOrphans killed a live process Start started")
	default:
	}
}

// TestContainedOnlyWhenTheLauncherSaysSo: a launcher killed before it
// could kill its tree and say "done" is not reported contained.
func TestContainedOnlyWhenTheLauncherSaysSo(t *testing.T) {
	t.Parallel()
	p, err := proc.Start(proc.Spec{Path: "sleep", Args: []string{"300"}, Env: os.Environ(), Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = waitFor(t, p)
	if p.Contained() {
		t.Error("a launcher killed by SIGKILL is reported to have contained its tree")
	}
}

// TestLauncherExitCodes: through the launcher, a command's exit code and
// a signal's 128+n come back as the process's exit code.
func TestLauncherExitCodes(t *testing.T) {
	t.Parallel()
	for script, want := range map[string]int{"exit 5": 5, "kill -TERM $$": 143, "kill -KILL $$": 137} {
		p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", script}, Env: os.Environ(), Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}})
		if err != nil {
			t.Fatal(err)
		}
		_ = waitFor(t, p)
		if got := p.State().ExitCode(); got != want {
			t.Errorf("%s: exit code %d, want %d", script, got, want)
		}
	}
}

// TestLauncherEnvironment: the launcher proc starts (odek unconfined
// until the target executes) holds none of the loader's variables the
// command's environment gives (a project server's LD_PRELOAD would run in
// it); the command gets them back. A nil environment is odek's own.
func TestLauncherEnvironment(t *testing.T) {
	t.Parallel()
	in, feed := pipe(t)
	r, w := pipe(t)
	env := append(os.Environ(), "LD_BIND_NOW=1", "GLIBC_TUNABLES=glibc.malloc.check=0", "ODEK_PROC_TEST=x")
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", `echo "$LD_BIND_NOW,$GLIBC_TUNABLES,$ODEK_PROC_TEST"; read x`},
		Env: env, Stdin: in, Stdout: w, Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := lines(t, r)(); got != "1,glibc.malloc.check=0,x" {
		t.Errorf("the command got %q, want its variables back", got)
	}
	launcherEnv, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/environ")
	feed.Close()
	_ = waitFor(t, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"LD_BIND_NOW=", "GLIBC_TUNABLES="} {
		if strings.Contains("\x00"+string(launcherEnv), "\x00"+name) {
			t.Errorf("the launcher holds %s", name)
		}
	}

	r, w = pipe(t)
	p, err = proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", `echo "$PATH"`}, Stdout: w, Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := lines(t, r)(); got != os.Getenv("PATH") {
		t.Errorf("with no environment given the command got %q, want odek's own", got)
	}
	_ = waitFor(t, p)
}

// parentEnv makes the test binary a parent that starts a launched
// command (sleep, through the launcher with the sandbox off), prints the
// launcher's and the command's pids and waits to be killed.
const parentEnv = "ODEK_PROC_TEST_PARENT"

func runParent() {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "echo $$; exec sleep 300"}, Env: os.Environ(), Stdout: w,
		Sandbox: &sandbox.Policy{Mode: sandbox.ModeOff}})
	if err != nil {
		panic(err)
	}
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n')
	os.Stdout.WriteString(strconv.Itoa(p.Pid()) + "\n" + line)
	_, _ = io.Copy(io.Discard, os.Stdin) // until killed
}

// TestLauncherDiesWithOdek: when odek dies without stopping its children
// (SIGKILL), the launcher is told (its parent-death signal, SIGTERM) and
// takes the command's tree with it, instead of leaving it to init.
func TestLauncherDiesWithOdek(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe, "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"=1")
	stdin, err := parent.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	next := lines(t, out)
	launcher, command := pidLine(t, next()), pidLine(t, next())
	_ = parent.Process.Kill()
	_ = parent.Wait()
	if !exitsWithin(t, launcher, limit) {
		t.Errorf("the launcher %d outlived odek", launcher)
	}
	if !exitsWithin(t, command, limit) {
		t.Errorf("the command %d outlived odek", command)
	}
}

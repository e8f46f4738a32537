package sandbox

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// attack is the first thing the confined command does: ask every thread of
// its parent, the launcher, whether it accepts a signal (kill -0 checks
// permission against the thread the id names), and send SIGKILL to each
// that does. dash starts in well under a millisecond.
const attack = `for t in /proc/$PPID/task/*; do t=${t##*/}
if kill -0 $t 2>/dev/null; then echo "$t:accepted"; kill -9 $t; else echo "$t:refused"; fi
done`

// TestCommandCannotSignalItsLauncher: the command's signals reach no thread
// of its launcher, even as the first thing it does: signal scoping refuses
// them for every thread outside the command's Landlock domain, and the
// seccomp filter for the one inside it, the thread that holds the policy
// and forked the command (without the filter's rule kill -0 is accepted in
// the first round, and kill -9 kills the launcher, orphaning its tree).
// Each round checks what the attack was told and how the launcher ended.
func TestCommandCannotSignalItsLauncher(t *testing.T) {
	if Probe().LandlockABI < abiScoping {
		t.Skip("no Landlock signal scoping")
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: t.TempDir(), Landlock: true}
	mustPrepare(t, &p)
	for round := range 25 {
		var out bytes.Buffer
		cmd := launcherCmd(t, p, nil, nil, "/bin/sh", "-c", attack)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("round %d: the command killed its launcher (%v); the attack saw:\n%s", round, ws.Signal(), out.String())
			}
		}
		if err != nil {
			t.Fatalf("round %d: %v:\n%s", round, err, out.String())
		}
		if strings.Contains(out.String(), ":accepted") {
			t.Fatalf("round %d: a launcher thread accepted the command's signal:\n%s", round, out.String())
		}
		if !strings.Contains(out.String(), ":refused") {
			t.Fatalf("round %d: the attack reached no launcher thread:\n%s", round, out.String())
		}
	}
}

// launcherCmd is the command that runs target under p through this test
// binary as the launcher, as proc starts it: status (nil: /dev/null) as
// fd 3, the launch's descriptors after it, then extra (descriptors the
// launcher inherits without asking for them).
func launcherCmd(t *testing.T, p Policy, status *os.File, extra []*os.File, target string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l, err := Command(exe, p, target, args...)
	if err != nil {
		t.Fatal(err)
	}
	if status == nil {
		status = devNull(t)
	}
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.ExtraFiles = append(append([]*os.File{status}, l.Files...), extra...)
	return cmd
}

// launch runs the launcher for p and argv with a status pipe, as proc
// does, and returns its exit code, the status lines and the output.
func launch(t *testing.T, p Policy, target string, args ...string) (int, string, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	cmd := launcherCmd(t, p, w, nil, target, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	// A group of its own, as proc starts it: the probe's calls on its
	// process group reach the launcher and the target only.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A descendant that outlives the launcher holds its output open:
	// Wait gives up on the output after a while instead of hanging.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	stuck := stopAfter(cmd, launchLimit)
	status, _ := io.ReadAll(r)
	err = cmd.Wait()
	if stuck() {
		t.Fatalf("the launcher did not exit within %v (killed):\n%s", launchLimit, out.String())
	}
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("the launcher exited but something it started still holds its output:\n%s", out.String())
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(status), out.String()
}

// launchLimit is how long a launch of these tests may take before it
// counts as hung: a launcher that never exits (its tree never killed)
// fails the test rather than waiting for go test's own timeout.
const launchLimit = 60 * time.Second

// stopAfter kills cmd's process group once d has passed, unless the
// returned func is called first; the func stops the timer and reports
// whether it fired.
func stopAfter(cmd *exec.Cmd, d time.Duration) func() bool {
	var fired atomic.Bool
	timer := time.AfterFunc(d, func() {
		fired.Store(true)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	return func() bool {
		timer.Stop()
		return fired.Load()
	}
}

// TestConfinedExecFailureReported: when the target cannot be executed
// under the policy (here it lies in a protected directory, which Landlock
// keeps the command from reading or executing), the launcher says why on
// its status pipe and exits 125; the target never ran.
func TestConfinedExecFailureReported(t *testing.T) {
	if Probe().LandlockABI < abiFS {
		t.Skip("no Landlock")
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.Mkdir(secret, 0o755); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(dir, "ws", "ran")
	prog := filepath.Join(secret, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+ran+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Dir(ran), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: filepath.Dir(ran), Landlock: true, Protected: []string{secret}}
	mustPrepare(t, &p)
	code, status, out := launch(t, p, prog)
	if want := "error: exec " + prog + ": permission denied\n"; code != 125 || status != want {
		t.Errorf("exit %d, status %q (output %q); want 125 and %q", code, status, out, want)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the protected program ran")
	}
}

// TestUnconfinedTargetStartsDirectly: with the sandbox off the launcher
// only reaps; the target runs, its exit code comes back, and the status
// pipe says ready and done.
func TestUnconfinedTargetStartsDirectly(t *testing.T) {
	code, status, out := launch(t, Policy{Mode: ModeOff}, "/bin/sh", "-c", "echo hi; exit 7")
	if code != 7 || status != StatusReady+"\n"+StatusDone+"\n" || out != "hi\n" {
		t.Errorf("exit %d, status %q, output %q; want 7, ready and done, hi", code, status, out)
	}
}

// TestCommandCannotWriteLauncherStatus: the launcher's status pipe never
// reaches the command, confined or
// started directly (mode off), so it cannot forge a status line
// ("error: …" would make odek report a launch that failed).
func TestCommandCannotWriteLauncherStatus(t *testing.T) {
	policies := []Policy{{Mode: ModeOff}}
	if Probe().LandlockABI >= abiFS {
		p := Policy{Mode: ModeWorkspaceWrite, Workspace: t.TempDir(), Landlock: true}
		mustPrepare(t, &p)
		policies = append(policies, p)
	}
	for _, p := range policies {
		code, status, out := launch(t, p, "/bin/sh", "-c", "echo 'error: forged' >&3 && echo wrote")
		if status != StatusReady+"\n"+StatusDone+"\n" || strings.Contains(out, "wrote") || code == 0 {
			t.Errorf("%s: exit %d, status %q, output %q; want the write to fail and the status ready, done", p.Mode, code, status, out)
		}
	}
}

// TestLauncherRefusesBadArguments: a launcher started without a policy and
// a target, or with a policy that is not one, exits 125 and says why on its
// status pipe; the old second stage's argument starts nothing.
func TestLauncherRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{{LauncherArg}, {LauncherArg, Policy{Mode: ModeOff}.encodeLaunch(), "--"},
		{LauncherArg, "not a policy", "--", "/bin/true"}, {LauncherArg, Policy{Mode: ModeOff}.encodeLaunch(), "++", "/bin/true"}} {
		if code, msg := launcherStatus(t, args...); code != 125 || !strings.HasPrefix(msg, "error: ") {
			t.Errorf("%q: exit %d, status %q; want 125 and an error line", args, code, msg)
		}
	}
	if IsLauncher([]string{"odek", "__odek-sandbox-confine"}) {
		t.Error("the second stage's argument still starts a launcher")
	}
}

// launcherStatus runs this test binary with args and a status pipe as
// fd 3, and returns its exit code (-1: it did not exit normally) and what
// the pipe said.
func launcherStatus(t *testing.T, args ...string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(probeExe(t), args...)
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(r)
	err = cmd.Wait()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return ee.ExitCode(), string(msg)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(msg)
}

// mustPrepare prepares p, failing the test on an error or a warning.
func mustPrepare(t testing.TB, p *Policy) {
	t.Helper()
	warns, err := p.Prepare()
	if err != nil || len(warns) > 0 {
		t.Fatalf("Prepare: %v %q", err, warns)
	}
}

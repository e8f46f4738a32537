//go:build linux && (amd64 || arm64)

package sandbox

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

	"golang.org/x/sys/unix"
)

// treeMarker is a name no other process carries: each test's descendants
// are found by it in /proc, whoever their parent is by then.
func treeMarker(t *testing.T) string {
	return "odek-tree-" + strconv.Itoa(os.Getpid()) + "-" + strings.ReplaceAll(t.Name(), "/", "-")
}

// killMarked kills what a failed test left behind.
func killMarked(t *testing.T, marker string) {
	t.Cleanup(func() {
		for _, pid := range withMarker(marker) {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	})
}

// TestLauncherKillsTheWholeTree: once the target exits, no process it
// started is left — a child, a setsid child (a daemon's own session) and
// an orphaned grandchild (a double fork) included — under every mode, and
// the launcher reports the target's own exit code. The descendants are
// found by a marker in their argv, wherever they were re-parented.
func TestLauncherKillsTheWholeTree(t *testing.T) {
	t.Parallel()
	policies := map[string]func(t *testing.T) Policy{
		"off": func(*testing.T) Policy { return Policy{Mode: ModeOff} },
	}
	if Probe().LandlockABI >= abiFS {
		policies["workspace-write"] = func(t *testing.T) Policy { p, _ := confinedPolicy(t, false); return p }
	}
	for name, policy := range policies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			marker := treeMarker(t)
			killMarked(t, marker)
			code, got := probeRun(t, policy(t), "spawn:"+marker, "exit:7")
			if got["spawn:"+marker] != "ok" {
				t.Fatalf("the tree did not start: %q", got)
			}
			if code != 7 {
				t.Errorf("exit %d, want the target's 7", code)
			}
			if left := withMarker(marker); len(left) > 0 {
				t.Errorf("processes of the tree outlived it: %v", left)
			}
		})
	}
}

// TestLauncherStopKillsTheTree: a launcher told to stop (SIGTERM, as
// proc.Stop does) while the target and its tree still run kills all of
// them, reports done, and exits as the target did: killed (128+9).
func TestLauncherStopKillsTheTree(t *testing.T) {
	t.Parallel()
	if Probe().LandlockABI < abiFS {
		t.Skip("no Landlock")
	}
	p, _ := confinedPolicy(t, false)
	marker := treeMarker(t)
	killMarked(t, marker)
	sr, sw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	or, ow, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer or.Close()
	cmd := launcherCmd(t, p, sw, nil, probeExe(t), probeArg, "spawn:"+marker, "hold:"+marker)
	cmd.Stdout = ow
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sw.Close()
	ow.Close()
	stuck := stopAfter(cmd, launchLimit)
	// The spawn's ok, then the target's own hold line: the tree is up.
	br := bufio.NewReader(or)
	for spawned := false; ; {
		line, err := br.ReadString('\n')
		if err != nil {
			stuck()
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			t.Fatalf("the tree did not come up: %v", err)
		}
		spawned = spawned || line == "spawn:"+marker+" ok\n"
		if spawned && line == "hold:"+marker+" up\n" {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	status, _ := io.ReadAll(sr)
	err = cmd.Wait()
	if stuck() {
		t.Fatalf("the launcher did not exit within %v of its stop (killed)", launchLimit)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGKILL) {
		t.Errorf("launcher: %v, want exit 137 (its target killed)", err)
	}
	if string(status) != StatusReady+"\n"+StatusDone+"\n" {
		t.Errorf("status %q, want ready and done", status)
	}
	if left := withMarker(marker); len(left) > 0 {
		t.Errorf("processes of the tree outlived the stop: %v", left)
	}
}

// TestLauncherExitStatus: the launcher exits with its target's code, or
// 128+n when a signal n ended it, as a shell reports it.
func TestLauncherExitStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		op   string
		want int
	}{{"exit:0", 0}, {"exit:3", 3}, {"killself:15", 143}, {"killself:9", 137}, {"killself:1", 129}} {
		t.Run(c.op, func(t *testing.T) {
			t.Parallel()
			if code, _ := probeRun(t, Policy{Mode: ModeOff}, c.op); code != c.want {
				t.Errorf("launcher exit %d, want %d", code, c.want)
			}
		})
	}
}

// TestTargetGetsItsEnvironmentBack: started with LauncherEnv's
// environment, as proc starts it, the launcher (odek,
// unconfined) holds none of the loader's variables under their own
// names, and the target, confined or not, gets every one back as it was
// given, a name that already carried the hiding prefix included.
func TestTargetGetsItsEnvironmentBack(t *testing.T) {
	t.Parallel()
	given := map[string]string{"LD_BIND_NOW": "1", "GLIBC_TUNABLES": "glibc.malloc.check=0", "MALLOC_ARENA_MAX": "2",
		"GCONV_PATH": "/nonexistent", hiddenPrefix + "KEPT": "as-is", "PLAIN": "p"}
	env := []string{"PATH=" + os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0"}
	var ops []string
	for k, v := range given {
		env = append(env, k+"="+v)
		ops = append(ops, "env:"+k)
	}
	policies := []Policy{{Mode: ModeOff}}
	if Probe().LandlockABI >= abiFS {
		p, _ := confinedPolicy(t, false)
		policies = append(policies, p)
	}
	for _, p := range policies {
		marker := treeMarker(t) + "-" + p.Mode
		killMarked(t, marker)
		cmd := launcherCmd(t, p, nil, nil, probeExe(t), append(append([]string{probeArg}, ops...), "hold:"+marker)...)
		cmd.Env = LauncherEnv(env)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stuck := stopAfter(cmd, launchLimit)
		got := map[string]string{}
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				break
			}
			if op, r, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " "); ok {
				got[op] = r
			}
			if strings.HasPrefix(line, "hold:") {
				break
			}
		}
		launcherEnv, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ")
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		stuck()
		for k, v := range given {
			if got["env:"+k] != v {
				t.Errorf("%s: the target's %s = %q, want %q", p.Mode, k, got["env:"+k], v)
			}
			if loaderVar(k) && strings.Contains("\x00"+string(launcherEnv), "\x00"+k+"=") {
				t.Errorf("%s: the launcher holds %s under its own name", p.Mode, k)
			}
		}
	}
}

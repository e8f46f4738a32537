//go:build unix

package builtin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestShellRuns(t *testing.T) {
	tools, root, _ := setup(t)
	sh := tools["shell"]
	out, err := call(t, sh, `{"command":"pwd; echo out; echo err >&2; exit 3","description":"test"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"exit code: 3", root + "\n", "out\n", "err\n", "<untrusted_content_"} {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q:\n%s", w, out)
		}
	}
	if out, _ := call(t, sh, `{"command":"true","description":"t"}`); !strings.Contains(out, "exit code: 0 (no output)") {
		t.Errorf("true: %s", out)
	}
	if out, _ := call(t, sh, `{"command":"echo $HOME","description":"t"}`); !strings.Contains(out, root) {
		t.Errorf("env not passed: %s", out)
	}
	if _, err := call(t, sh, `{"command":"  ","description":"t"}`); !errors.Is(err, ErrCommandRequired) {
		t.Errorf("empty command: %v", err)
	}
}

// Output over the cap keeps head and tail; the whole is saved as an artifact.
func TestShellOutputCap(t *testing.T) {
	tools, _, st := setup(t)
	out, err := call(t, tools["shell"], `{"command":"seq 1 20000","description":"many lines"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "bytes omitted — output was 108894 bytes total") || !strings.Contains(out, "\n20000\n") || !strings.Contains(out, "\n1\n2\n") {
		t.Fatalf("cap: %.300s … %s", out, out[len(out)-300:])
	}
	if len(out) > MaxShellOutput+2000 {
		t.Fatalf("output %d bytes, cap %d", len(out), MaxShellOutput)
	}
	if len(st.saved) != 1 || len(st.saved[0]) != 108894 || !strings.Contains(out, `- artifact "result-1"`) {
		t.Fatalf("artifact: %d saved, line present %v", len(st.saved), strings.Contains(out, "artifact"))
	}
}

// A command past its timeout is killed together with every process it
// started: none of them outlives the call.
func TestShellTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	tools, root, _ := setup(t)
	start := time.Now()
	_, err := call(t, tools["shell"], `{"command":"sleep 300 & echo $! > child.pid; (sleep 300; echo late) & echo $! > sub.pid; sleep 300","description":"hang","timeout":1}`)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "timed out after 1s") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
	for _, f := range []string{"child.pid", "sub.pid"} {
		assertDead(t, filepath.Join(root, f))
	}
}

// A background job left behind by a finished command dies with it too.
func TestShellBackgroundJobKilled(t *testing.T) {
	tools, root, _ := setup(t)
	out, err := call(t, tools["shell"], `{"command":"sleep 300 & echo $! > bg.pid; echo started","description":"bg"}`)
	if err != nil || !strings.Contains(out, "exit code: 0") {
		t.Fatalf("%v %s", err, out)
	}
	assertDead(t, filepath.Join(root, "bg.pid"))
}

func TestShellCancel(t *testing.T) {
	tools, root, _ := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tools["shell"].Call(ctx, []byte(`{"command":"echo $$ > sh.pid; sleep 300","description":"hang"}`))
		done <- err
	}()
	waitFile(t, filepath.Join(root, "sh.pid"))
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	assertDead(t, filepath.Join(root, "sh.pid"))
}

func waitFile(t *testing.T, p string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(p); err == nil && strings.HasSuffix(string(b), "\n") {
			return
		}
	}
	t.Fatalf("%s never appeared", p)
}

// assertDead: the process in the pid file is gone, or a zombie waiting for
// its reaper (it runs nothing).
func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL is delivered asynchronously: wait for the state to change.
	for deadline := time.Now().Add(5 * time.Second); !processDead(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !processDead(pid) {
		t.Errorf("process %d (%s) is still alive", pid, filepath.Base(pidFile))
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func processDead(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

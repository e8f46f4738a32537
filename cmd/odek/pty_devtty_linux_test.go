package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/syncbuf"
	"github.com/odek-run/odek/internal/testbin"
)

// TestPromptOnDevTTY pipes a diff into odek at a real pseudo-terminal:
// stdin is the pipe, stderr the terminal. With the terminal as odek's
// controlling terminal the risk policy's question is asked there and the
// key typed on it answers it (a "d" is the operator's denial); without a
// controlling terminal nobody can answer, and the call is denied as it
// always was, without waiting.
func TestPromptOnDevTTY(t *testing.T) {
	if testing.Short() {
		t.Skip("builds odek and runs it on a terminal")
	}
	t.Parallel()
	odek := testbin.Build(t, "odek", "./cmd/odek")
	for _, ctty := range []bool{true, false} {
		t.Run(map[bool]string{true: "controlling-terminal", false: "none"}[ctty], func(t *testing.T) {
			t.Parallel()
			out, stdout, err := runAtTerminal(t, odek, ctty)
			if err != nil {
				t.Fatalf("odek: %v\n%q", err, out)
			}
			if strings.TrimSpace(stdout) != "done" {
				t.Errorf("stdout = %q", stdout)
			}
			asked := strings.Contains(out, "Choice [a/d/t/s, default d]: ")
			switch {
			case ctty && (!asked || !strings.Contains(out, "denied by the operator: shell")):
				t.Errorf("not asked on the controlling terminal, or the answer typed there was not taken:\n%q", out)
			case !ctty && (asked || !strings.Contains(out, "no terminal to ask")):
				t.Errorf("without a controlling terminal the call must be denied unasked:\n%q", out)
			}
		})
	}
}

// runAtTerminal runs odek with a piped stdin and stderr on a new
// pseudo-terminal, in a session of its own whose controlling terminal is
// that terminal when ctty is set, and none otherwise; it answers "d" to a
// question. It returns what the terminal showed, stdout and the exit.
func runAtTerminal(t *testing.T, odek string, ctty bool) (string, string, error) {
	t.Helper()
	script, err := fakellm.ParseScript([]byte(`{"turns": [
	  {"tool_calls": [{"id": "c1", "name": "shell", "arguments": {"command": "curl -s http://127.0.0.1:9/", "description": "fetch"}}]},
	  {"match": "TOOL RESULT", "content": "done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakellm.Start(script, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	master, slave := openPTY(t, 120, 30)
	out, _ := readPTY(master)
	home := t.TempDir()
	cmd := exec.Command(odek, "run", "--no-planning", "Review this diff")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + home, "ODEK_HOME=" + filepath.Join(home, ".odek"), "ODEK_BASE_URL=" + srv.URL(),
		"PATH=" + os.Getenv("PATH"), "TERM=xterm", "NO_COLOR=1"}
	cmd.Stdin = strings.NewReader("--- a/x.go\n+++ b/x.go\n")
	cmd.Stderr = slave
	var stdout syncbuf.Buffer
	cmd.Stdout = &stdout
	// Stderr is the child's descriptor 2: with Setctty it becomes the
	// session's controlling terminal, which /dev/tty then opens.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: ctty, Ctty: 2}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { // a failed wait leaves no odek behind
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	})
	if ctty {
		waitFor(t, out, "Choice [a/d/t/s, default d]: ", 20*time.Second)
		if _, err := master.Write([]byte("d\n")); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("odek did not finish:\n%q", out.String())
	}
	// odek has exited; the master has read all it wrote once the summary,
	// its last line, is there.
	waitFor(t, out, "tool call(s)", 5*time.Second)
	return out.String(), stdout.String(), err
}

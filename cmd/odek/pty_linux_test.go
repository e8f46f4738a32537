package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/syncbuf"
	"github.com/odek-run/odek/internal/testbin"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the master, which the test reads
// and types into, and the slave, which odek gets as its terminal.
func openPTY(t *testing.T, cols, rows uint16) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("open the slave: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatalf("set the size: %v", err)
	}
	return m, s
}

// readPTY copies what the terminal shows into out until the master's reads
// fail (every slave descriptor closed); drained is closed then.
func readPTY(master *os.File) (out *syncbuf.Buffer, drained <-chan struct{}) {
	out = &syncbuf.Buffer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return out, done
}

// waitFor polls out until it holds want; the bytes arriving on the
// terminal are the event waited for.
func waitFor(t *testing.T, out *syncbuf.Buffer, want string, limit time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if i := strings.Index(out.String(), want); i >= 0 {
			return i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the terminal after %v:\n%q", want, limit, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPromptNotOverwritten runs odek on a real pseudo-terminal: while the
// risk policy's question is open the ticking status line stays off it, the
// key typed lands on the answer line, and the status line is back after.
func TestPromptNotOverwritten(t *testing.T) {
	if testing.Short() {
		t.Skip("builds odek and runs it on a terminal")
	}
	t.Parallel()
	odek := testbin.Build(t, "odek", "./cmd/odek")
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
	out, drained := readPTY(master)
	home := t.TempDir()
	cmd := exec.Command(odek, "run", "--no-planning", "Fetch the page")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + home, "ODEK_HOME=" + filepath.Join(home, ".odek"), "ODEK_BASE_URL=" + srv.URL(),
		"PATH=" + os.Getenv("PATH"), "TERM=xterm", "NO_COLOR=1"}
	cmd.Stdin, cmd.Stderr = slave, slave
	var stdout syncbuf.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	}()

	waitFor(t, out, "odek · iteration 1", 10*time.Second) // the status line ticks
	asked := waitFor(t, out, "Choice [a/d/t/s, default d]: ", 10*time.Second)
	// The question is open: nothing may be drawn over it. Asserting an
	// absence needs a window; it is four ticks of the status line, which
	// without the pause repaints within one.
	time.Sleep(4 * runview.StatusTick)
	if after := out.String()[asked:]; after != "" {
		t.Fatalf("the terminal was written while the prompt was open: %q", after)
	}
	if _, err := master.Write([]byte("d\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("odek: %v\n%s", err, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("odek did not finish:\n%q", out.String())
	}
	_ = slave.Close() // the last writer gone, the master reads to the end
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
		t.Fatalf("the terminal's output did not end")
	}
	rest := out.String()[asked:]
	if !strings.HasPrefix(rest, "d\r\n") {
		t.Errorf("the typed key did not land on the answer line: %q", rest)
	}
	if !strings.Contains(rest, "denied by the operator: shell") {
		t.Errorf("the denial does not say who denied it: %q", rest)
	}
	if strings.TrimSpace(stdout.String()) != "done" {
		t.Errorf("stdout = %q", stdout.String())
	}
}

package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/odek-run/odek/internal/procfs"
)

// TestParents: the scan finds this process's parent, and a child's, also
// when the child's command name holds a space and a closing parenthesis
// (the name is the field /proc/PID/stat cannot delimit).
func TestParents(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	raw, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(t.TempDir(), "a) b (c")
	if err := os.WriteFile(odd, raw, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(odd, "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	m := parents()
	if got := m[os.Getpid()]; got != os.Getppid() {
		t.Errorf("parent of this process = %d, want %d", got, os.Getppid())
	}
	if got := m[cmd.Process.Pid]; got != os.Getpid() {
		t.Errorf("parent of %q (pid %d) = %d, want %d", filepath.Base(odd), cmd.Process.Pid, got, os.Getpid())
	}
	if kids := childPids(os.Getpid()); len(kids) == 0 {
		t.Errorf("childPids(self) found no child, want %d among them", cmd.Process.Pid)
	}
}

func BenchmarkChildPids(b *testing.B) {
	b.Run("thread-lists", func(b *testing.B) {
		for b.Loop() {
			procfs.Children(os.Getpid())
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			parents()
		}
	})
}

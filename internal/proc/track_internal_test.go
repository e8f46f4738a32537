package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
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

// TestThreadChildrenMatchScan: the children lists of this process's
// threads name the same children as the scan of every process's stat,
// also a child started from another thread.
func TestThreadChildrenMatchScan(t *testing.T) {
	if _, ok := threadChildren(os.Getpid()); !ok {
		t.Skip("this kernel keeps no /proc/PID/task/TID/children lists")
	}
	var cmds []*exec.Cmd
	defer func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	started := make(chan *exec.Cmd, 3)
	for range 3 {
		go func() { // each Start may run on another thread
			c := exec.Command("sleep", "300")
			if err := c.Start(); err != nil {
				t.Error(err)
				c = nil
			}
			started <- c
		}()
	}
	for range 3 {
		if c := <-started; c != nil {
			cmds = append(cmds, c)
		}
	}
	got, _ := threadChildren(os.Getpid())
	var want []int
	for child, pp := range parents() {
		if pp == os.Getpid() {
			want = append(want, child)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("threads' children lists = %v, scan = %v", got, want)
	}
	for _, c := range cmds {
		if !slices.Contains(got, c.Process.Pid) {
			t.Errorf("child %d missing from the threads' children lists %v", c.Process.Pid, got)
		}
	}
}

func BenchmarkChildPids(b *testing.B) {
	b.Run("thread-lists", func(b *testing.B) {
		for b.Loop() {
			threadChildren(os.Getpid())
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			parents()
		}
	})
}

package procfs

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
)

// TestThreadChildrenMatchScan: the children lists of this process's
// threads name the same children as the scan of every process's stat,
// also a child started from another thread.
func TestThreadChildrenMatchScan(t *testing.T) {
	if _, ok := Children(os.Getpid()); !ok {
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
	got, _ := Children(os.Getpid())
	want := childrenByStat(t, os.Getpid())
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("threads' children lists = %v, every stat = %v", got, want)
	}
	for _, c := range cmds {
		if !slices.Contains(got, c.Process.Pid) {
			t.Errorf("child %d missing from the threads' children lists %v", c.Process.Pid, got)
		}
	}
}

// childrenByStat is the oracle: the processes whose stat names pid as
// their parent (the field after the state, which follows the command
// name's last closing parenthesis).
func childrenByStat(t *testing.T, pid int) []int {
	t.Helper()
	names, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, n := range names {
		child, err := strconv.Atoi(n.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n.Name() + "/stat")
		if err != nil {
			continue
		}
		f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
		if len(f) > 1 && string(f[1]) == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

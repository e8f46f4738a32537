package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/procfs"
)

// childrenByScan, the launcher's way to find its children where the
// kernel has no children lists, finds this process's real children from
// their stat lines, a child whose name holds spaces and parentheses ("a)
// 1 (b": the parent pid comes after the last ')') included, and no
// process that is not one: every pid it lists has this process as its
// parent, and it agrees with the kernel's lists where they exist.
func TestChildrenByScan(t *testing.T) {
	t.Parallel()
	odd := filepath.Join(t.TempDir(), "a) 1 (b")
	src, err := os.Open("/bin/sleep")
	if err != nil {
		t.Skip("no /bin/sleep")
	}
	dst, err := os.OpenFile(odd, os.O_CREATE|os.O_WRONLY, 0o755)
	if err == nil {
		_, err = io.Copy(dst, src)
		dst.Close()
	}
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	var kids []int
	for _, path := range []string{"/bin/sleep", odd} {
		cmd := exec.Command(path, "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		kids = append(kids, cmd.Process.Pid)
	}
	got := childrenByScan()
	for _, k := range kids {
		if !slices.Contains(got, k) {
			t.Errorf("child %d not found: %v", k, got)
		}
	}
	self := strconv.Itoa(os.Getpid())
	for _, pid := range got {
		if pid == os.Getpid() || pid == 1 {
			t.Errorf("%d listed as a child", pid)
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err == nil && !slices.Contains(strings.Split(string(b), "\n"), "PPid:\t"+self) {
			t.Errorf("%d listed as a child, but its parent is another", pid)
		}
	}
	if listed, ok := procfs.Children(os.Getpid()); ok {
		for _, k := range kids {
			if !slices.Contains(listed, k) {
				t.Errorf("the kernel's lists miss %d: %v", k, listed)
			}
		}
	}
}

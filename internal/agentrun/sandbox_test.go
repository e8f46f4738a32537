package agentrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSweepTmpDirs: a private temp dir whose odek is gone is removed; a
// live one's, and anything not named like one, stays.
func TestSweepTmpDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(tmp, "odek-tmp-"+strconv.Itoa(dead.Process.Pid)+"-1")
	live := filepath.Join(tmp, "odek-tmp-"+strconv.Itoa(os.Getpid())+"-2")
	other := filepath.Join(tmp, "odek-tmp-notapid-3")
	for _, d := range []string{gone, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweepTmpDirs()
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s of a dead pid survived: %v", gone, err)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}

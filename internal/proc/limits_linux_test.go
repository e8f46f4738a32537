package proc

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRestoreLimits: a process of the same user lowers this process's
// RLIMIT_NOFILE and RLIMIT_FSIZE with prlimit(1); RestoreLimits puts both
// back and says so, and says nothing when nothing changed. Not parallel:
// it changes the test process's own limits.
func TestRestoreLimits(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit is not installed")
	}
	noteLimits()
	if got := RestoreLimits(); got != "" {
		t.Fatalf("nothing lowered, yet: %q", got)
	}
	var nofile, fsize unix.Rlimit
	_ = unix.Prlimit(0, unix.RLIMIT_NOFILE, nil, &nofile)
	_ = unix.Prlimit(0, unix.RLIMIT_FSIZE, nil, &fsize)
	pid := strconv.Itoa(unix.Getpid())
	lower := "--nofile=64:" + strconv.FormatUint(nofile.Max, 10)
	if out, err := exec.Command("prlimit", "--pid", pid, lower, "--fsize=4096:unlimited").CombinedOutput(); err != nil {
		t.Fatalf("prlimit: %v: %s", err, out)
	}
	got := RestoreLimits()
	if !strings.Contains(got, "restored RLIMIT_NOFILE, RLIMIT_FSIZE") {
		t.Errorf("RestoreLimits() = %q", got)
	}
	var now unix.Rlimit
	if _ = unix.Prlimit(0, unix.RLIMIT_NOFILE, nil, &now); now != nofile {
		t.Errorf("RLIMIT_NOFILE is %+v, want %+v back", now, nofile)
	}
	if _ = unix.Prlimit(0, unix.RLIMIT_FSIZE, nil, &now); now != fsize {
		t.Errorf("RLIMIT_FSIZE is %+v, want %+v back", now, fsize)
	}
}

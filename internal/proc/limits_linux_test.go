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

// TestRestoreLimitsEveryGuarded: each limit whose lowering cripples odek —
// its address space, data, stack, descriptors, processes, CPU time and
// file size — is put back when lowered (here its soft limit by one, which
// harms nothing), and named; the list is written out here, so a limit
// dropped from the code's fails this test. Not parallel: it changes the
// test process's own limits.
func TestRestoreLimitsEveryGuarded(t *testing.T) {
	noteLimits()
	want := []struct {
		res  int
		name string
	}{{unix.RLIMIT_AS, "RLIMIT_AS"}, {unix.RLIMIT_DATA, "RLIMIT_DATA"}, {unix.RLIMIT_STACK, "RLIMIT_STACK"},
		{unix.RLIMIT_NOFILE, "RLIMIT_NOFILE"}, {unix.RLIMIT_NPROC, "RLIMIT_NPROC"}, {unix.RLIMIT_CPU, "RLIMIT_CPU"},
		{unix.RLIMIT_FSIZE, "RLIMIT_FSIZE"}}
	before := map[int]unix.Rlimit{}
	var names []string
	for _, l := range want {
		var r unix.Rlimit
		if err := unix.Prlimit(0, l.res, nil, &r); err != nil || r.Cur == 0 {
			t.Fatalf("%s: %+v %v", l.name, r, err)
		}
		before[l.res] = r
		lower := unix.Rlimit{Cur: r.Cur - 1, Max: r.Max}
		if err := unix.Prlimit(0, l.res, &lower, nil); err != nil {
			t.Fatalf("lower %s: %v", l.name, err)
		}
		names = append(names, l.name)
	}
	if got, want := RestoreLimits(), "a process lowered odek's own resource limits; restored "+strings.Join(names, ", "); got != want {
		t.Errorf("RestoreLimits() = %q, want %q", got, want)
	}
	for _, l := range want {
		var now unix.Rlimit
		if _ = unix.Prlimit(0, l.res, nil, &now); now != before[l.res] {
			t.Errorf("%s is %+v, want %+v back", l.name, now, before[l.res])
		}
	}
}

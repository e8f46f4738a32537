package subagent

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// nobody is the unprivileged user the key race runs as when the test is
// root: ptrace's rules, which decide who may look into a process, are not
// the same for root.
const nobody = 65534

// TestKeyRace races, for a thousand children per variant, an unconfined
// process of the children's own user that takes every way into a starting
// child it has: /proc/<child>/environ, /proc/<child>/fd/3, pidfd_getfd of
// descriptor 3 (and, through it, a request for the key with a socket of
// its own), pidfd_getfd of descriptors 4 to 6, and /proc/<child>/mem opened
// early and read later (keyrace thief). It must never see a key
// (issue 33, item 5: 56 of 64 children's keys were read through
// /proc/<child>/fd/3 when it held a file).
//
//   - execute-only: children started as odek starts them, from an
//     execute-only copy of the executable (proc.ExecOnlySelf), so they are
//     non-dumpable from exec: every attack fails, every child gets its key.
//   - plain-exec: children started from /proc/self/exe, dumpable until
//     childkey's init (where the kernel refuses the copy): the thief gets
//     into the window and steals descriptor 3, but /proc/<child>/fd/3
//     cannot be opened and the parent writes the key only into a socket
//     the child made, so the most it achieves is a refused handover.
//     /proc/<child>/mem is not tried: opened in that window it reads the
//     key later (docs/SECURITY.md).
//   - root: the same as root, where the thief's CAP_SYS_PTRACE passes every
//     check of the kernel's: descriptor 3 still yields nothing.
//
// The thief runs as the children's user (nobody when the test is root).
// -short races fewer children.
func TestKeyRace(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc")
	}
	children := 1000
	if testing.Short() {
		children = 200
	}
	bin := buildKeyrace(t)
	user := &syscall.Credential{Uid: nobody, Gid: nobody}
	if os.Geteuid() != 0 {
		user = nil // the test's own user is already unprivileged
	}
	variants := []struct {
		name      string
		as        *syscall.Credential
		parent    []string
		attacks   string
		allOK     bool // no handover may fail: the thief cannot get in
		mustGetIn bool // the thief must reach children while dumpable
	}{
		{"execute-only", user, nil, "environ,fd3,getfd3,getfd,mem", true, false},
		{"plain-exec", user, []string{"-plain"}, "environ,fd3,getfd3,getfd", false, true},
		{"root", nil, nil, "environ,fd3,getfd3", false, true},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			if v.name == "root" && os.Geteuid() != 0 {
				t.Skip("not root")
			}
			parent := append([]string{"parent", "-n", strconv.Itoa(children), "-j", "4"}, v.parent...)
			res := raceKeys(t, bin, v.as, parent, []string{"thief", "-attacks", v.attacks})
			t.Logf("parent: %s", strings.Join(res.parent, "; "))
			t.Logf("thief: %s", res.stats)
			if v.allOK && res.execOnly != "yes" {
				t.Skipf("no execute-only copy here: %s", res.execOnly)
			}
			for _, l := range res.leaks {
				t.Errorf("key stolen: %s", l)
			}
			checkRaceOutcome(t, res, children, v.allOK)
			if res.count("seen") == 0 {
				t.Fatalf("the thief saw no child start: the race did not happen (%s)", res.stats)
			}
			if v.mustGetIn && res.count("reached") == 0 {
				t.Fatalf("the thief reached no child while it was dumpable: the race proves nothing (%s)", res.stats)
			}
		})
	}
}

// raceResult is what one race printed.
type raceResult struct {
	parent   []string // the parent's lines
	execOnly string   // "yes", or why the parent has no execute-only copy
	leaks    []string // the thief's LEAK lines
	stats    string   // the thief's stats line
}

// count is the thief's stats figure name.
func (r *raceResult) count(name string) int {
	for _, f := range strings.Fields(r.stats) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// raceKeys runs keyrace's thief and, once it is ready, its parent, both as
// user (nil: the test's own), and collects what they print.
func raceKeys(t *testing.T, bin string, user *syscall.Credential, parentArgs, thiefArgs []string) *raceResult {
	t.Helper()
	attr := func(cmd *exec.Cmd) {
		cmd.Dir, cmd.Env = "/", []string{"PATH=/usr/bin:/bin"}
		if user != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: user}
		}
	}
	thief := exec.Command(bin, thiefArgs...)
	attr(thief)
	stop, err := thief.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := thief.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	thief.Stderr = &stderr
	if err := thief.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = thief.Process.Kill(); _ = thief.Wait() }()
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("thief did not start: %q %s", lines.Text(), stderr.String())
	}
	parent := exec.Command(bin, parentArgs...)
	attr(parent)
	pout, err := parent.CombinedOutput()
	_ = stop.Close() // the thief stops, finishes reading what it took, and reports
	res := &raceResult{}
	for lines.Scan() {
		switch l := lines.Text(); {
		case strings.HasPrefix(l, "LEAK "):
			res.leaks = append(res.leaks, l)
		case strings.HasPrefix(l, "stats "):
			res.stats = l
		}
	}
	if err := thief.Wait(); err != nil || res.stats == "" {
		t.Fatalf("thief: %v %s", err, stderr.String())
	}
	if err != nil {
		t.Fatalf("parent: %v\n%s", err, pout)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(pout)), "\n") {
		if v, ok := strings.CutPrefix(l, "exec-only "); ok {
			res.execOnly = v
			continue
		}
		res.parent = append(res.parent, l)
	}
	return res
}

// checkRaceOutcome checks the parent's account: every child got its key or
// the parent refused the handover because another process held the
// child's descriptor 3 (allOK: none may be refused); no child ever ran
// with a wrong key or none.
func checkRaceOutcome(t *testing.T, res *raceResult, children int, allOK bool) {
	t.Helper()
	ok := -1
	refused := 0
	for _, l := range res.parent {
		f := strings.Fields(l)
		switch {
		case len(f) == 4 && f[0] == "children" && f[2] == "ok":
			if f[1] != strconv.Itoa(children) {
				t.Fatalf("parent started %s children, want %d", f[1], children)
			}
			ok, _ = strconv.Atoi(f[3])
		case len(f) > 2 && f[0] == "refused" && !allOK && strings.Contains(l, "another process holds the child's descriptor"):
			n, _ := strconv.Atoi(f[1])
			refused += n
		default:
			t.Errorf("parent: %s", l)
		}
	}
	if ok+refused != children {
		t.Errorf("%d children got their key and %d handovers were refused, of %d", ok, refused, children)
	}
}

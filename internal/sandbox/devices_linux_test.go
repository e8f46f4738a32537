package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair and returns the master, the slave
// (held open, never read, as a shell would hold its terminal) and the
// slave's path.
func openPTY(t *testing.T) (master, slave *os.File, path string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	path = "/dev/pts/" + strconv.Itoa(n)
	s, err := os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s, path
}

// stealAttack reads a line off another terminal of the same user, as a
// keylogger would, then checks that the devices a command needs still work.
const stealAttack = `timeout 2 head -n 1 "$1"; echo "read=$?"
head -c 4 /dev/urandom | wc -c | tr -d ' '; echo x > /dev/null && echo null-ok`

// TestCommandCannotReadOtherTerminals: a confined command cannot read
// what the operator types into another terminal (/dev/pts/N is theirs, so
// the mode allows it), nor any other device but the harmless ones: the
// read set granted /dev as a whole, and a command read the line typed
// into another terminal; run as root, every block device that holds a
// protected file would have been readable the same way. /dev/null, zero,
// full, random and urandom still work.
func TestCommandCannotReadOtherTerminals(t *testing.T) {
	if Probe().LandlockABI < abiFS {
		t.Skip("no Landlock")
	}
	home := t.TempDir()
	run := func(p Policy) string {
		master, _, path := openPTY(t)
		if _, err := master.WriteString("hunter2\n"); err != nil {
			t.Fatal(err)
		}
		_, _, out := launch(t, p, "/bin/sh", "-c", stealAttack, "sh", path)
		return out
	}
	if out := run(Policy{Mode: ModeOff}); !strings.Contains(out, "hunter2") {
		t.Skipf("the control could not read the terminal either:\n%s", out)
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: t.TempDir(), Landlock: true, Protected: DefaultProtected(home, "")}
	mustPrepare(t, &p)
	out := run(p)
	if strings.Contains(out, "hunter2") || strings.Contains(out, "read=0") {
		t.Errorf("the confined command read another terminal:\n%s", out)
	}
	if !strings.Contains(out, "\n4\nnull-ok") {
		t.Errorf("/dev/urandom or /dev/null do not work:\n%s", out)
	}
}

package sandbox

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestGuardRefusesProcWhateverItsName(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	a := m.access(t, ModeWorkspaceWrite)
	// The name is a workspace file's: what was opened is odek's environ.
	err := a.Guard().Read(openT(t, "/proc/self"), openT(t, "/proc/self/environ"), m.ws+"/environ")
	if kindOf(t, err) != ProcessFiles {
		t.Errorf("/proc/self/environ under a workspace name: %v", err)
	}
}

// A bind mount of a protected directory into the workspace is the same
// directory: refused. It needs the right to mount (root); skipped
// otherwise.
func TestGuardRefusesABindMount(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	a := m.access(t, ModeWorkspaceWrite)
	mnt := m.ws + "/mnt"
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(m.home+"/.ssh", mnt, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount here: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	if got := readKind(t, a, mnt+"/id_rsa"); got != Protected {
		t.Errorf("a file through a bind mount of ~/.ssh: kind %d", got)
	}
	if got := kindOf(t, a.Guard().Write(openT(t, mnt), mnt)); got != Protected {
		t.Errorf("a write into the bind mount: kind %d", got)
	}
}

// The map's roots are the very descriptors the launcher's rules hold:
// a workspace replaced after Prepare is not the workspace for the path
// tools either, though its name is.
func TestAccessHoldsThePolicysRoots(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	p := m.policy(ModeWorkspaceWrite)
	p.Landlock = true
	if _, err := p.PrepareLazily(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Release)
	if err := os.Rename(m.ws, m.ws+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(m.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := NewAccess(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := kindOf(t, a.Guard().Write(openT(t, m.ws), m.ws)); got != OutsideWritable {
		t.Errorf("the workspace made after Prepare: kind %d, want it outside the roots", got)
	}
	if got := kindOf(t, a.Guard().Write(openT(t, m.tmp), m.tmp)); got != 0 {
		t.Errorf("the temp dir: kind %d", got)
	}
}

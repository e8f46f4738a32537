//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func init() {
	// guardwalk:DIR checks, in a process whose stdin is closed (odek run
	// with <&-), that a Guard's walk up from DIR and from DIR/sub leaves no
	// descriptor behind: not the lowest free one, 0, which the walk's
	// parents take first, nor any other. A descriptor left at 0 would be
	// the next program's stdin.
	probeOps["guardwalk"] = func(dir string) string {
		a, err := NewAccess(Policy{Mode: ModeWorkspaceWrite, Workspace: dir})
		if err != nil {
			return result(err)
		}
		a.Prepare()
		var files []*os.File
		for _, d := range []string{dir, dir, filepath.Join(dir, "sub")} {
			f, err := os.Open(d)
			if err != nil {
				return result(err)
			}
			defer f.Close()
			files = append(files, f)
		}
		// A first walk with stdin open: whatever the runtime opens once
		// (its poller) is open before the count.
		if err := a.Guard().Write(files[0], dir); err != nil {
			return result(err)
		}
		if err := unix.Close(0); err != nil {
			return result(err)
		}
		for i, f := range files[1:] {
			path := []string{dir, filepath.Join(dir, "sub")}[i]
			before, err := openFDs()
			if err != nil {
				return result(err)
			}
			if err := a.Guard().Write(f, path); err != nil {
				return result(err)
			}
			if _, err := unix.FcntlInt(0, unix.F_GETFD, 0); err == nil {
				return "fd-0-left-open-by-the-walk-from:" + path
			}
			after, err := openFDs()
			if err != nil {
				return result(err)
			}
			if after != before {
				return fmt.Sprintf("descriptors-%d-before-%d-after-the-walk-from:%s", before, after, path)
			}
		}
		return "ok"
	}
}

// openFDs counts the process's open descriptors (the listing's own
// included, the same each time).
func openFDs() (int, error) {
	e, err := os.ReadDir("/proc/self/fd")
	return len(e), err
}

// A Guard's walk up through ".." closes every directory it opened, the
// last one too, whichever descriptor number it got: a path tool call in a
// process started with stdin closed must not leave a directory at fd 0.
// DIR and DIR/sub end their walks on different descriptors (the walk's
// two alternate).
func TestGuardWalkClosesItsDescriptors(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := probeControl(t, "guardwalk:"+dir)["guardwalk:"+dir]; got != "ok" {
		t.Errorf("the walk: %s", got)
	}
}

// The walk up is bounded at 4096 directories: a directory 4094 levels
// below / is walked to the root (4095 directories, then /.. is / again)
// and a write into it allowed; one 4095 levels below needs one step more
// and is refused, failing closed. The tree is made on a tmpfs where there
// is one (on a disk under load its 4000 directories take seconds).
func TestGuardWalkBound(t *testing.T) {
	t.Parallel()
	ws := memDir(t)
	a, err := NewAccess(Policy{Mode: ModeWorkspaceWrite, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := ws
	for depth := strings.Count(ws, "/"); depth < 4095; depth++ {
		if err := unix.Mkdirat(fd, "d", 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, "d", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd, path = next, path+"/d"
	}
	deepest := os.NewFile(uintptr(fd), path)
	defer deepest.Close()
	parent, err := unix.Openat(fd, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	above := os.NewFile(uintptr(parent), filepath.Dir(path))
	defer above.Close()
	if err := a.Guard().Write(above, filepath.Dir(path)); err != nil {
		t.Errorf("a write 4094 levels below /: %v", err)
	}
	var ae *AccessError
	if err := a.Guard().Write(deepest, path); !errors.As(err, &ae) || ae.Kind != Unresolved {
		t.Errorf("a write 4095 levels below /: %v, want it refused as unresolved", err)
	}
}

// memDir is a new directory on /dev/shm (a tmpfs), removed after the test,
// or the test's temp dir where there is none.
func memDir(t *testing.T) string {
	t.Helper()
	if d, err := os.MkdirTemp("/dev/shm", "odek-sandbox-test-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(d) })
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return real
		}
	}
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A walk's entries: a plain subdirectory passes (a directory is refused
// only when it is a proc file system), and a proc directory reached under
// a workspace name is refused as odek's own process.
func TestGuardEntryDirectories(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	a := m.access(t, ModeWorkspaceWrite)
	sub := filepath.Join(m.ws, "pkg", "sub")
	mkfile(t, filepath.Join(sub, "x.go"), "package sub")
	g := a.Guard()
	if err := g.Read(nil, openT(t, m.ws), m.ws); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(m.ws, "pkg"), sub} {
		if err := g.Entry(int(openT(t, d).Fd()), d); err != nil {
			t.Errorf("the workspace directory %s: %v", d, err)
		}
	}
	if got := kindOf(t, g.Entry(int(openT(t, "/proc/self").Fd()), m.ws+"/self")); got != ProcessFiles {
		t.Errorf("/proc/self under a workspace name: kind %d", got)
	}
	if got := kindOf(t, g.Entry(int(openT(t, "/proc/self/fd").Fd()), m.ws+"/fd")); got != ProcessFiles {
		t.Errorf("/proc/self/fd under a workspace name: kind %d", got)
	}
}

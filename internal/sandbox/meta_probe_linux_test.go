//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMetadataCallsOnlyBeneathWritableRoots: every call that changes a
// file's mode, owner, times or extended attributes — each of them, the
// legacy forms amd64 keeps included — fails with EPERM on a file outside
// the writable roots (one the command may read) and works on a file in
// the workspace, the supervisor doing it. A setuid or setgid bit fails
// everywhere: asked of the chmod calls, and of every call that creates a
// file with a mode (open, openat, creat, mknod, mknodat); the same
// creations without the bits work.
func TestMetadataCallsOnlyBeneathWritableRoots(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, roots := metaPolicy(t, true)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var cases []probeCase
	var files []string
	for i, name := range append(append([]string(nil), chmodOps...), otherMeta...) {
		// Inside: each root in turn (the supervisor holds them all).
		out, in := filepath.Join(outside, "o"+strconv.Itoa(i)), filepath.Join(roots[i%len(roots)], "i"+strconv.Itoa(i))
		files = append(files, out, in)
		cases = append(cases, probeCase{name + ":" + out, "EPERM"}, probeCase{name + ":" + in, "ok"})
	}
	// Each file exists, 0644, with the attribute the remove calls remove.
	plant := func() {
		for _, f := range files {
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(f, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := unix.Setxattr(f, "user.odek-probe", []byte("v"), 0); err != nil {
				t.Skipf("no user attributes here: %v", err)
			}
		}
	}
	plant()
	for i, name := range chmodOps {
		f := filepath.Join(ws, "s"+strconv.Itoa(i))
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, probeCase{name + "+s:" + f, "EPERM"}, probeCase{name + "+g:" + f, "EPERM"})
	}
	for _, name := range createOps {
		for _, mode := range []string{"+s", "+g", ""} {
			want := "EPERM"
			if mode == "" {
				want = "ok"
			}
			cases = append(cases, probeCase{name + mode + ":" + filepath.Join(ws, "new-"+name+mode), want})
		}
	}
	// The control makes the new files first: the confined run needs its own.
	checkProbeWith(t, p, cases, func() {
		plant()
		for _, name := range createOps {
			for _, mode := range []string{"+s", "+g", ""} {
				_ = os.Remove(filepath.Join(ws, "new-"+name+mode))
			}
		}
	})
}

// metaPolicy is a prepared workspace-write policy with a temp dir and a
// writable path, and the three writable roots; it skips where no
// supervisor can be had.
func metaPolicy(t *testing.T, landlock bool) (Policy, string, []string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := []string{filepath.Join(root, "ws"), filepath.Join(root, "tmp"), filepath.Join(root, "cache")}
	for _, r := range roots {
		if err := os.Mkdir(r, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: roots[0], TempDir: roots[1], Writable: roots[2:], Landlock: landlock, Network: true}
	mustPrepare(t, &p)
	if landlock && !supervisedLaunch(t, p) {
		t.Skip("no supervisor here (a listener above this process)")
	}
	return p, roots[0], roots
}

// metaFile is a supervised workspace-write policy (metaPolicy) and an
// empty file "f" in its workspace, mode 0644.
func metaFile(t *testing.T) (Policy, string) {
	t.Helper()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	f := filepath.Join(ws, "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, f
}

// supervisedLaunch reports whether a launch of p gets a supervisor: the
// kernel gives a listener to a filter installed here. It asks the kernel
// apart from the supervisor (a probe installs a filter with a listener of
// its own): a supervisor that fails must fail the tests, not skip them,
// as it did when this asked the supervisor to chmod a file.
func supervisedLaunch(t *testing.T, p Policy) bool {
	t.Helper()
	if !p.Landlock {
		return false
	}
	return probeControl(t, "listener")["listener"] == "ok"
}

// TestMetadataFollowsSymlinksAsTheCallWould: the supervisor acts on the
// file the call names, following a final symlink exactly when the call
// would: a link in the workspace to a file outside may have its own owner
// set (fchownat with AT_SYMLINK_NOFOLLOW, lchown) but not its target's
// (fchownat, chown, chmod through it), and a link to a file inside
// reaches that file.
func TestMetadataFollowsSymlinksAsTheCallWould(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	target, inside := filepath.Join(outside, "target"), filepath.Join(ws, "inside")
	for _, f := range []string{target, inside} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, in := filepath.Join(ws, "to-outside"), filepath.Join(ws, "to-inside")
	if err := os.Symlink(target, out); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(inside, in); err != nil {
		t.Fatal(err)
	}
	cases := []probeCase{
		{"fchownat_nofollow:" + out, "ok"}, {"fchownat:" + out, "EPERM"}, {"fchmodat:" + out, "EPERM"},
		{"fchownat:" + in, "ok"}, {"fchmodat:" + in, "ok"}, {"fchownat_nofollow:" + in, "ok"},
	}
	if _, ok := legacyMetaCalls["lchown"]; ok {
		cases = append(cases, probeCase{"lchown:" + out, "ok"}, probeCase{"chown:" + out, "EPERM"})
	}
	checkProbe(t, p, cases)
}

// TestMetadataWithoutSupervisor: a policy without Landlock has no
// writable roots for a supervisor to hold, so every metadata call fails,
// in the workspace too; set-id bits as ever.
func TestMetadataWithoutSupervisor(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, false)
	var cases []probeCase
	for i, name := range append(append([]string(nil), chmodOps...), otherMeta...) {
		f := filepath.Join(ws, "f"+strconv.Itoa(i))
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := unix.Setxattr(f, "user.odek-probe", []byte("v"), 0); err != nil {
			t.Skipf("no user attributes here: %v", err)
		}
		cases = append(cases, probeCase{name + ":" + f, "EPERM"})
	}
	checkProbeWith(t, p, cases, func() {
		for i := range chmodOps {
			if err := os.Chmod(filepath.Join(ws, "f"+strconv.Itoa(i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for i := range otherMeta {
			_ = unix.Setxattr(filepath.Join(ws, "f"+strconv.Itoa(len(chmodOps)+i)), "user.odek-probe", []byte("v"), 0)
		}
	})
}

// TestMetadataValueLimit: an attribute value over the kernel's own limit
// is refused by the supervisor as the kernel would refuse it (E2BIG),
// before the supervisor reads that much of the caller's memory.
func TestMetadataValueLimit(t *testing.T) {
	t.Parallel()
	p, f := metaFile(t)
	op := "setxattr_big:" + f
	if ctl := probeControl(t, op)[op]; ctl != "E2BIG" {
		t.Skipf("the kernel answers %s itself here", ctl)
	}
	if _, got := probeRun(t, p, op); got[op] != "E2BIG" {
		t.Errorf("confined: %q, want E2BIG", got[op])
	}
}

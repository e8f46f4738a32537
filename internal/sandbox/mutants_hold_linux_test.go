//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

func init() {
	// holdrelease:WS prepares a policy of workspace WS (its read set
	// walked: WS/secret is protected) and releases it, in a process whose
	// stdin is closed, so that the ruleset gets descriptor 0 (the lowest
	// free one): it must be taken as a ruleset, and every descriptor
	// Prepare opened must be closed by Release. Releasing a policy never
	// prepared must do nothing.
	probeOps["holdrelease"] = func(ws string) string {
		policy := func() Policy {
			return Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Landlock: true, Protected: []string{filepath.Join(ws, "secret")}}
		}
		// A first round with stdin open: what the runtime opens once (its
		// poller) is open before the count.
		first := policy()
		if _, err := first.Prepare(); err != nil {
			return result(err)
		}
		first.Release()
		if err := unix.Close(0); err != nil {
			return result(err)
		}
		before, err := openFDs()
		if err != nil {
			return result(err)
		}
		p := policy()
		if _, err := p.Prepare(); err != nil {
			return "prepare:" + strings.ReplaceAll(err.Error(), " ", "_")
		}
		if p.held == nil || p.held.ruleset == nil {
			return "no-ruleset"
		}
		p.Release()
		after, err := openFDs()
		if err != nil {
			return result(err)
		}
		if after != before {
			return fmt.Sprintf("descriptors-%d-before-Prepare-%d-after-Release", before, after)
		}
		never := policy()
		never.Release()
		return "ok"
	}
}

func needLandlock(t *testing.T) {
	t.Helper()
	if Probe().LandlockABI == 0 {
		t.Skip("no Landlock")
	}
}

// Release closes everything Prepare opened (the held rules and the
// ruleset), and a ruleset that got descriptor 0 (odek started with stdin
// closed) is a ruleset like any other.
func TestReleaseClosesWhatPrepareOpened(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkfile(t, filepath.Join(ws, "secret"), "SECRET")
	if got := probeControl(t, "holdrelease:"+ws)["holdrelease:"+ws]; got != "ok" {
		t.Errorf("Prepare then Release: %s", got)
	}
}

// A policy released before its first launch cannot launch: its ruleset
// is never built.
func TestReleasedPolicyCannotLaunch(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Landlock: true}
	if _, err := p.PrepareLazily(); err != nil {
		t.Fatal(err)
	}
	p.Release()
	if _, err := Command(probeExe(t), p, "/bin/true"); !errors.Is(err, ErrReleased) {
		t.Errorf("a launch after Release: %v, want %v", err, ErrReleased)
	}
}

// Prepare walks the read set at once; PrepareLazily at the first launch.
// So a file made in an ancestor of a protected path (the home holding
// ~/.ssh) after Prepare is not in a prepared policy's read set, and one
// made before the first launch of a lazily prepared policy is.
func TestPrepareTakesTheReadSetNow(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	mkfile(t, filepath.Join(home, ".ssh", "id"), "SECRET")
	mkfile(t, filepath.Join(home, "before"), "x")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	policy := func() Policy {
		return Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Landlock: true, Network: true,
			Protected: []string{filepath.Join(home, ".ssh")}}
	}
	eager, lazy := policy(), policy()
	mustPrepare(t, &eager)
	t.Cleanup(eager.Release)
	if _, err := lazy.PrepareLazily(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lazy.Release)
	after := filepath.Join(home, "after")
	mkfile(t, after, "x")
	before := filepath.Join(home, "before")
	ops := []string{"read:" + before, "read:" + after}
	if ctl := probeControl(t, ops...); ctl["read:"+after] != "ok" {
		t.Fatalf("the control cannot read %s: %v", after, ctl)
	}
	_, got := probeRun(t, eager, ops...)
	if got["read:"+before] != "ok" || got["read:"+after] != "EACCES" {
		t.Errorf("prepared before %s was made: %v, want %s ok and %s EACCES", after, got, before, after)
	}
	_, got = probeRun(t, lazy, ops...)
	if got["read:"+before] != "ok" || got["read:"+after] != "ok" {
		t.Errorf("prepared lazily before %s was made: %v, want both ok", after, got)
	}
}

// Without Landlock nothing is held: Prepare opens no path, so it warns of
// no symlinked rule and needs no workspace; nor does it for a policy that
// confines nothing (mode off).
func TestPrepareWithoutLandlockHoldsNothing(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, real := filepath.Join(root, "ws"), filepath.Join(root, "real")
	for _, d := range []string{ws, real} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "cache")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Policy{
		{Mode: ModeWorkspaceWrite, Workspace: ws, Writable: []string{link}, Readable: []string{link}},
		{Mode: ModeReadOnly, Workspace: filepath.Join(root, "missing")},
		{Mode: ModeOff, Workspace: filepath.Join(root, "missing"), Landlock: true},
	} {
		warns, err := p.Prepare()
		if err != nil || len(warns) > 0 {
			t.Errorf("%s, landlock %v: %v %q, want nothing opened", p.Mode, p.Landlock, err, warns)
		}
		p.Release()
	}
}

// The rights a rule may carry are those of the kernel's Landlock ABI: a
// kernel of ABI 1 (Linux 5.13 to 5.18) handles V1's, not none.
func TestHandledRightsPerABI(t *testing.T) {
	t.Parallel()
	for abi, want := range map[int]uint64{
		0: 0, -1: 0,
		1:  uint64(landlock.V1.HandledAccessFS),
		2:  uint64(landlock.V2.HandledAccessFS),
		11: uint64(landlock.V11.HandledAccessFS),
		99: uint64(landlock.V11.HandledAccessFS),
	} {
		if got := handledFSAt(abi); got != want {
			t.Errorf("ABI %d: rights %#x, want %#x", abi, got, want)
		}
	}
	if handledFSAt(1) == 0 {
		t.Error("ABI 1 handles nothing")
	}
}

package sandbox

import (
	"reflect"
	"testing"
)

// Every LaunchInfo encodeLaunch can write is read back as written: a
// ruleset without roots (a read-only policy with no temp dir holds no
// writable root), flags alone, roots alone.
func TestLaunchFormEachLaunchField(t *testing.T) {
	t.Parallel()
	for _, l := range []LaunchInfo{
		{Ruleset: true},
		{Ruleset: true, RulesetFlags: 2},
		{Ruleset: true, Roots: []string{"/w"}},
		{RulesetFlags: 1},
		{Roots: []string{"/w"}},
		{RulesetFlags: 4, Roots: []string{"/w", "/t"}},
	} {
		p := Policy{Mode: ModeReadOnly, Landlock: true, Launch: &l}
		enc := p.encodeLaunch()
		got, err := decodeLaunch(enc)
		if err != nil {
			t.Errorf("%q: %v", enc, err)
			continue
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%q decoded to %+v (launch %+v), want launch %+v", enc, got, got.Launch, l)
		}
	}
}

// A sub-agent's policy is narrowed only where its parent's is narrower: in
// the parent's workspace (or below it) under a workspace-write parent it
// keeps workspace-write, and its writable paths inside the parent's stay.
func TestWithinKeepsWhatTheParentAllows(t *testing.T) {
	t.Parallel()
	parent := Policy{Mode: ModeWorkspaceWrite, Workspace: "/p", Writable: []string{"/cache"}, Landlock: true}
	for _, ws := range []string{"/p", "/p/sub"} {
		child := Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Writable: []string{"/cache/go", "/p/gen"}, Landlock: true}
		got := child.Within(parent)
		if got.Mode != ModeWorkspaceWrite {
			t.Errorf("a child in %s under a workspace-write parent in /p: mode %s, want workspace-write", ws, got.Mode)
		}
		if !reflect.DeepEqual(got.Writable, child.Writable) {
			t.Errorf("a child in %s: writable %q, want %q", ws, got.Writable, child.Writable)
		}
	}
}

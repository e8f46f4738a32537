//go:build unix

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The refusal of a write outside the roots lists up to four roots by name
// and counts the rest: with exactly four there is nothing more to count,
// with five there is one.
func TestOutsideWritableListsFourRootsThenCounts(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	extra := []string{m.cache, filepath.Join(m.outside, "a"), filepath.Join(m.outside, "b")}
	for _, c := range []struct {
		writable []string
		want     string
	}{
		{extra[:2], "(they are " + m.tmp + ", " + m.ws + ", " + extra[0] + ", " + extra[1] + "): it cannot be written"},
		{extra, "(they are " + m.tmp + ", " + m.ws + ", " + extra[0] + ", " + extra[1] + " and 1 more): it cannot be written"},
	} {
		p := m.policy(ModeWorkspaceWrite)
		p.Writable = c.writable
		a, err := NewAccess(p)
		if err != nil {
			t.Fatal(err)
		}
		err = a.Decide(m.home+"/notes", true)
		if kindOf(t, err) != OutsideWritable || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%d roots: %v, want it to end %q", len(c.writable)+2, err, c.want)
		}
	}
}

// An AccessError built without roots (the type is exported; no map of this
// package refuses a write with none, a workspace-write map always has its
// workspace) says there are none rather than listing nothing.
func TestOutsideWritableWithNoRoots(t *testing.T) {
	t.Parallel()
	err := &AccessError{Path: "/srv/x", Write: true, Kind: OutsideWritable}
	want := "/srv/x is outside the sandbox's writable roots (there are none): it cannot be written"
	if err.Error() != want {
		t.Errorf("%q, want %q", err.Error(), want)
	}
}

// A protected file inside a readable tree (a configuration Collisions
// warns of: the launcher's rule grants it to commands) is let through by
// its name, since readable trees are read whole; the Guard refuses it by
// its identity, and says it is that protected path, not one under another
// name.
func TestGuardReadProtectedFileInsideReadableTree(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	skills := filepath.Join(m.odekHome, "skills")
	token := filepath.Join(skills, "token")
	mkfile(t, token, "SECRET token")
	p := m.policy(ModeWorkspaceWrite)
	p.Protected = append(p.Protected, token)
	a, err := NewAccess(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Decide(token, false); err != nil {
		t.Fatalf("by name, inside a readable tree: %v", err)
	}
	err = a.Guard().Read(openT(t, skills), openT(t, token), token)
	var ae *AccessError
	if !errors.As(err, &ae) || ae.Kind != Protected || ae.Rule != token || ae.Alias {
		t.Fatalf("reading %s: %#v (%v), want it refused as the protected path itself", token, ae, err)
	}
	if want := token + " is a protected path: no tool reads or writes it"; err.Error() != want {
		t.Errorf("%q, want %q", err.Error(), want)
	}
	// The same file under another name (a hard link in the workspace) is an
	// alias of it.
	link := filepath.Join(m.ws, "token-link")
	if err := os.Link(token, link); err != nil {
		t.Fatal(err)
	}
	err = a.Guard().Read(openT(t, m.ws), openT(t, link), link)
	if !errors.As(err, &ae) || ae.Kind != Protected || !ae.Alias {
		t.Errorf("the hard link %s: %v, want an alias of %s", link, err, token)
	}
}

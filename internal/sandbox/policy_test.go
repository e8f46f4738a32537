package sandbox

import (
	"slices"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want string
	}{
		{Policy{Mode: "auto", Workspace: "/w"}, `mode "auto"`},
		{Policy{Mode: "", Workspace: "/w"}, `mode ""`},
		{Policy{Mode: ModeWorkspaceWrite, Workspace: "w"}, `workspace "w" is not an absolute path`},
		{Policy{Mode: ModeReadOnly, Workspace: "/w", TempDir: "t"}, `tmpdir "t"`},
		{Policy{Mode: ModeWorkspaceWrite, Workspace: "/w", Writable: []string{"~/.cache"}}, `writable path "~/.cache"`},
		{Policy{Mode: ModeWorkspaceWrite, Workspace: "/w", Protected: []string{"x"}}, `protected path "x"`},
		{Policy{Mode: ModeOff}, ""},
		{Policy{Mode: ModeWorkspaceWrite, Workspace: "/w", Writable: []string{"/c"}}, ""},
	} {
		err := c.p.Validate()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.p, err, c.want)
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: "/w", TempDir: "/t", Writable: []string{"/c"}, Protected: []string{"/h/.ssh"}, Landlock: true}
	enc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(enc)
	if err != nil || got.Workspace != "/w" || !got.Landlock || got.Writable[0] != "/c" {
		t.Fatalf("%+v %v", got, err)
	}
	for _, bad := range []string{"", "{", `{"mode":"sideways"}`, `{"mode":"workspace-write","workspace":"rel"}`, `[]`} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(`{"mode":"workspace-write","workspace":"/w","protected":["/h/.ssh"]}`)
	f.Add(`{"mode":"off"}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Decode(s)
		if err == nil && p.Validate() != nil {
			t.Fatalf("Decode accepted an invalid policy %q", s)
		}
	})
}

// TestWithinNeverWider: a sub-agent's policy narrowed by its parent's is
// never wider in any respect, whatever the sub-agent's own config says.
func TestWithinNeverWider(t *testing.T) {
	parent := Policy{Mode: ModeWorkspaceWrite, Workspace: "/p", Writable: []string{"/cache"}, Readable: []string{"/h/.ssh/known_hosts"},
		Protected: []string{"/h/.ssh", "/h/.odek"}}
	modes := []string{ModeOff, ModeAuto, ModeWorkspaceWrite, ModeReadOnly}
	for _, pm := range []string{ModeOff, ModeWorkspaceWrite, ModeReadOnly} {
		for _, cm := range modes {
			for _, net := range []bool{false, true} {
				par := parent
				par.Mode = pm
				child := Policy{Mode: cm, Network: net, Workspace: "/p/sub", Writable: []string{"/cache/go", "/etc", "/p/x"},
					Readable: []string{"/h/.ssh", "/h/.ssh/known_hosts"}, Protected: []string{"/h/.aws"}}
				got := child.Within(par)
				if Rank(got.Mode) < Rank(par.Mode) {
					t.Errorf("parent %s child %s: mode %s is looser", pm, cm, got.Mode)
				}
				if got.Network && !par.Network {
					t.Errorf("parent %s child %s: network on under a parent with it off", pm, cm)
				}
				for _, w := range got.Writable {
					if pm == ModeReadOnly || !isUnder(w, "/p") && !isUnder(w, "/cache") {
						t.Errorf("parent %s child %s: writable %s not the parent's", pm, cm, w)
					}
				}
				if slices.Contains(got.Readable, "/h/.ssh") {
					t.Errorf("parent %s child %s: reads ~/.ssh the parent protects", pm, cm)
				}
				for _, pr := range append(slices.Clone(par.Protected), child.Protected...) {
					if !slices.Contains(got.Protected, pr) {
						t.Errorf("parent %s child %s: %s no longer protected", pm, cm, pr)
					}
				}
			}
		}
	}
	outside := Policy{Mode: ModeWorkspaceWrite, Workspace: "/elsewhere"}.Within(parent)
	if outside.Mode != ModeReadOnly {
		t.Errorf("a workspace outside the parent's is %s, want read-only", outside.Mode)
	}
}

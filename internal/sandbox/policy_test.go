package sandbox

import (
	"reflect"
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

func TestLaunchForm(t *testing.T) {
	for _, p := range []Policy{
		{Mode: ModeOff},
		{Mode: ModeReadOnly, Network: true},
		{Mode: ModeWorkspaceWrite, Landlock: true, Launch: &LaunchInfo{Ruleset: true, RulesetFlags: 1,
			Roots: []string{"/w", "/tmp/odek tmp", "/h/\"quoted\" \\ \xff\x00\n"}}},
	} {
		enc := p.encodeLaunch()
		got, err := decodeLaunch(enc)
		if err != nil {
			t.Fatalf("%q: %v", enc, err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%q decoded to %+v, want %+v", enc, got, p)
		}
	}
	const ok = "odek-launch/1 workspace-write net=0 landlock=1 ruleset=1 flags=0 \"/w\" \"/t\""
	if _, err := decodeLaunch(ok); err != nil {
		t.Fatalf("%q: %v", ok, err)
	}
	for _, bad := range []string{
		"", "{}", `{"mode":"off"}`, "odek-launch/1 off", "odek-launch/2 off net=0 landlock=0 ruleset=0 flags=0",
		"odek-launch/1 auto net=0 landlock=0 ruleset=0 flags=0",
		"odek-launch/1 off net=yes landlock=0 ruleset=0 flags=0",
		"odek-launch/1 off net=0 landlock=0 ruleset=0 flags=-1",
		"odek-launch/1 off net=0 landlock=0 ruleset=0 flags=4294967296",
		"odek-launch/1 off net=0 landlock=0 ruleset=0 flags=0 ",
		"odek-launch/1 off  net=0 landlock=0 ruleset=0 flags=0",
		"odek-launch/1 off landlock=0 net=0 ruleset=0 flags=0",
		strings.Replace(ok, `"/t"`, "`/t`", 1),
		strings.Replace(ok, `"/t"`, `"\x2ft"`, 1),
		strings.Replace(ok, ` "/t"`, `  "/t"`, 1),
		strings.Replace(ok, `"/t"`, `"/t`, 1),
		strings.Replace(ok, ` "/t"`, `"/t"`, 1),
		strings.Replace(ok, `"/t"`, `'t'`, 1),
		ok + " /x",
	} {
		if p, err := decodeLaunch(bad); err == nil {
			t.Errorf("decodeLaunch(%q) accepted: %+v", bad, p)
		}
	}
}

// FuzzDecodeLaunch: whatever argv holds, the launcher accepts only what
// encodeLaunch writes, and reads it back as written.
func FuzzDecodeLaunch(f *testing.F) {
	f.Add("odek-launch/1 off net=0 landlock=0 ruleset=0 flags=0")
	f.Add("odek-launch/1 workspace-write net=0 landlock=1 ruleset=1 flags=1 \"/w\" \"/a b\\x00\"")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := decodeLaunch(s)
		if err != nil {
			return
		}
		if enc := p.encodeLaunch(); enc != s {
			t.Fatalf("decodeLaunch accepted %q, which encodes as %q", s, enc)
		}
		if p.Mode != ModeOff && p.Mode != ModeReadOnly && p.Mode != ModeWorkspaceWrite {
			t.Fatalf("decodeLaunch accepted mode %q", p.Mode)
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

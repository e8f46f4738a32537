package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepareRefusesSymlinkedRules: a rule whose path holds a symlink when
// it is opened (the link itself or a directory above it) is not granted,
// and the warning names the path and where the link leads; a workspace or
// temp dir behind a symlink is an error (the policy cannot do without
// them). A real path beside them is held as usual.
func TestPrepareRefusesSymlinkedRules(t *testing.T) {
	if Probe().LandlockABI == 0 {
		t.Skip("no Landlock")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ws", "real/cache", "secret"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"cache": "real/cache", "up": "real", "wslink": "ws"} {
		if err := os.Symlink(filepath.Join(root, target), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws := filepath.Join(root, "ws")
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Landlock: true,
		Writable: []string{filepath.Join(root, "cache"), filepath.Join(root, "up/cache"), filepath.Join(root, "real/cache")},
		Readable: []string{filepath.Join(root, "up")}}
	warns, err := p.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"writable path " + filepath.Join(root, "cache") + " is not granted: a symlink in its path leads to " + filepath.Join(root, "real/cache"),
		"writable path " + filepath.Join(root, "up/cache") + " is not granted: a symlink in its path leads to " + filepath.Join(root, "real/cache"),
		"readable path " + filepath.Join(root, "up") + " is not granted: a symlink in its path leads to " + filepath.Join(root, "real"),
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q, want %d", warns, len(want))
	}
	for i, w := range want {
		if !strings.Contains(warns[i], w) {
			t.Errorf("warning %d = %q, want it to say %q", i, warns[i], w)
		}
	}
	var held []string
	for _, r := range p.held.roots {
		held = append(held, r.path)
	}
	if !contains(held, filepath.Join(root, "real/cache")) || contains(held, filepath.Join(root, "cache")) {
		t.Errorf("held %q: want the real path and not the links", held)
	}
	for _, bad := range []Policy{
		{Mode: ModeWorkspaceWrite, Workspace: filepath.Join(root, "wslink"), Landlock: true},
		{Mode: ModeReadOnly, Workspace: filepath.Join(root, "wslink"), Landlock: true},
		{Mode: ModeWorkspaceWrite, Workspace: ws, TempDir: filepath.Join(root, "up/cache"), Landlock: true},
		{Mode: ModeWorkspaceWrite, Workspace: filepath.Join(root, "missing"), Landlock: true},
	} {
		if _, err := bad.Prepare(); err == nil {
			t.Errorf("workspace %s, temp dir %s: prepared", bad.Workspace, bad.TempDir)
		}
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// TestCollisions: a writable or readable tree that holds an existing
// protected path, and a writable tree (or the temp dir) inside a protected
// one, are refused naming both paths; nested writable trees, a temp dir in
// the workspace, a readable tree inside a protected one and a protected
// path that does not exist are not.
func TestCollisions(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".cargo/registry", ".ssh", ".config/gh", "ws/tmp"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".cargo/credentials"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h := func(p string) string { return filepath.Join(home, p) }
	base := Policy{Mode: ModeWorkspaceWrite, Workspace: h("ws"), Protected: DefaultProtected(home, h(".odek"))}
	for _, tc := range []struct {
		name                string
		writable, readable  []string
		tmp                 string
		mode                string
		want1, want2, wantW string
	}{
		{name: "writable holds protected", writable: []string{h(".cargo")}, want1: "writable path " + h(".cargo"), want2: "holds protected path " + h(".cargo/credentials")},
		{name: "readable holds protected", readable: []string{h(".config")}, want1: "readable path " + h(".config"), want2: "holds protected path " + h(".config/gh")},
		{name: "writable inside protected", writable: []string{h(".ssh/sockets")}, want1: "writable path " + h(".ssh/sockets"), want2: "lies inside protected path " + h(".ssh")},
		{name: "temp dir inside protected", tmp: h(".odek/tmp"), want1: "the private temp dir " + h(".odek/tmp"), want2: "lies inside protected path " + h(".odek")},
		{name: "home writable", writable: []string{home}, want1: "writable path " + home, want2: "holds protected path"},
		{name: "read-only ignores writable", writable: []string{h(".cargo")}, mode: ModeReadOnly},
		{name: "nested writable", writable: []string{h(".cargo/registry"), h(".cargo/registry/cache")}},
		{name: "temp dir in workspace", tmp: h("ws/tmp")},
		{name: "readable inside protected", readable: []string{h(".ssh/known_hosts")}},
		{name: "absent protected", writable: []string{h(".gem")}},
	} {
		p := base
		p.Writable, p.Readable, p.TempDir = tc.writable, tc.readable, tc.tmp
		if tc.mode != "" {
			p.Mode = tc.mode
		}
		err := p.Collisions()
		if tc.want1 == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrCollision) || !strings.Contains(err.Error(), tc.want1) || !strings.Contains(err.Error(), tc.want2) {
			t.Errorf("%s: %v; want it to name %q and %q", tc.name, err, tc.want1, tc.want2)
		}
	}
}

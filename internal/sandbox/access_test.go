package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mapTree is a home with secrets, odek's home, a workspace, a temp dir, a
// writable cache and a readable tree inside a protected one, all real
// directories under one temp dir (symlinks resolved).
type mapTree struct {
	home, odekHome, ws, tmp, cache, outside string
}

func newMapTree(t testing.TB) mapTree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := mapTree{
		home: filepath.Join(base, "home"), odekHome: filepath.Join(base, "home", ".config", "odek"),
		ws: filepath.Join(base, "ws"), tmp: filepath.Join(base, "tmp"), cache: filepath.Join(base, "home", ".cache"),
		outside: filepath.Join(base, "outside"),
	}
	for _, f := range []string{".ssh/id_rsa", ".netrc", ".config/odek/config.json", ".config/odek/skills/s.md", ".cache/c", ".bashrc"} {
		mkfile(t, filepath.Join(m.home, f), "SECRET "+f)
	}
	for _, d := range []string{m.ws, m.tmp, m.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func mkfile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (m mapTree) policy(mode string) Policy {
	return Policy{
		Mode: mode, Workspace: m.ws, TempDir: m.tmp, Writable: []string{m.cache},
		Readable:  []string{filepath.Join(m.odekHome, "skills")},
		Protected: DefaultProtected(m.home, m.odekHome),
	}
}

func (m mapTree) access(t *testing.T, mode string) *Access {
	t.Helper()
	a, err := NewAccess(m.policy(mode))
	if err != nil {
		t.Fatal(err)
	}
	a.Prepare() // as odek does at start: identities are taken now
	return a
}

// kindOf is the refusal's kind, 0 for none.
func kindOf(t *testing.T, err error) Kind {
	t.Helper()
	if err == nil {
		return 0
	}
	var ae *AccessError
	if !errors.As(err, &ae) {
		t.Fatalf("not an AccessError: %v", err)
	}
	return ae.Kind
}

func TestDecide(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	ww, ro := m.access(t, ModeWorkspaceWrite), m.access(t, ModeReadOnly)
	for _, c := range []struct {
		path           string
		write          bool
		wantWW, wantRO Kind
	}{
		{m.ws + "/a.go", false, 0, 0},
		{m.ws + "/a.go", true, 0, ReadOnly},
		{m.ws, true, 0, ReadOnly},
		{m.tmp + "/x", true, 0, ReadOnly}, // read-only: no tool writes, the temp dir neither
		{m.cache + "/c", true, 0, ReadOnly},
		{m.outside + "/x", false, 0, 0},
		{m.outside + "/x", true, OutsideWritable, ReadOnly},
		{m.home + "/.bashrc", true, OutsideWritable, ReadOnly},
		{m.home + "/.ssh", false, Protected, Protected},
		{m.home + "/.ssh/id_rsa", false, Protected, Protected},
		{m.home + "/.ssh/id_rsa", true, Protected, ReadOnly},
		{m.home + "/.ssh/new/deeper", true, Protected, ReadOnly},
		{m.home + "/.netrc", false, Protected, Protected},
		{m.odekHome + "/config.json", false, Protected, Protected},
		{m.odekHome + "/config.json", true, Protected, ReadOnly},
		{m.odekHome + "/skills/s.md", false, 0, 0}, // readable inside a protected path
		{m.odekHome + "/skills/s.md", true, Protected, ReadOnly},
		{"/etc/shadow", false, Protected, Protected},
		{"/dev/fd/3", false, Protected, Protected},
		{"/proc/self/environ", false, ProcessFiles, ProcessFiles},
		{"/proc/self/root" + m.home + "/.ssh/id_rsa", false, ProcessFiles, ProcessFiles},
		{"/proc", false, ProcessFiles, ProcessFiles},
		{"/processes", false, 0, 0},
		{"relative/x", false, Unresolved, Unresolved},
		{m.ws + "/../outside/x", false, Unresolved, Unresolved},
	} {
		if got := kindOf(t, ww.Decide(c.path, c.write)); got != c.wantWW {
			t.Errorf("workspace-write %s (write %v): kind %d, want %d", c.path, c.write, got, c.wantWW)
		}
		if got := kindOf(t, ro.Decide(c.path, c.write)); got != c.wantRO {
			t.Errorf("read-only %s (write %v): kind %d, want %d", c.path, c.write, got, c.wantRO)
		}
	}
}

// A protected path is matched in its canonical form too: a home reached
// through a symlink, a protected entry that is itself a link.
func TestDecideCanonicalForms(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	link := filepath.Join(filepath.Dir(m.home), "homelink")
	if err := os.Symlink(m.home, link); err != nil {
		t.Fatal(err)
	}
	// ~/.aws is a dangling link: what a write there would make is
	// protected too.
	if err := os.Symlink("../elsewhere/aws", m.home+"/.aws"); err != nil {
		t.Fatal(err)
	}
	// A loop of links ends.
	if err := os.Symlink("loop2", m.home+"/.kube"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".kube", m.home+"/loop2"); err != nil {
		t.Fatal(err)
	}
	p := m.policy(ModeWorkspaceWrite)
	p.Protected = DefaultProtected(link, "")
	a, err := NewAccess(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{m.home + "/.ssh/id_rsa", m.home + "/.gnupg/k", link + "/.ssh/id_rsa",
		filepath.Dir(m.home) + "/elsewhere/aws/credentials"} {
		if kindOf(t, a.Decide(path, false)) != Protected {
			t.Errorf("%s is not protected", path)
		}
	}
}

func TestAccessErrorsNameThePathAndWhy(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	a := m.access(t, ModeWorkspaceWrite)
	for path, want := range map[string]string{
		m.home + "/.ssh/id_rsa":  "is inside the protected path " + m.home + "/.ssh: no tool reads or writes it",
		m.home + "/.netrc":       m.home + "/.netrc is a protected path",
		m.outside + "/x":         "is outside the sandbox's writable roots (they are " + m.tmp + ", " + m.ws + ", " + m.cache + ")",
		"/proc/self/environ":     "/proc/self/environ is in /proc, which for the path tools is odek's own process",
		m.odekHome + "/cfg.json": "inside the protected path " + m.odekHome,
	} {
		err := a.Decide(path, true)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	err := m.access(t, ModeReadOnly).Decide(m.ws+"/f", true)
	if err == nil || err.Error() != "the sandbox is read-only: "+m.ws+"/f cannot be written" {
		t.Errorf("read-only: %v", err)
	}
}

func TestNewAccessNeedsASandboxedMode(t *testing.T) {
	t.Parallel()
	if _, err := NewAccess(Policy{Mode: ModeOff}); !errors.Is(err, ErrBadPolicy) {
		t.Errorf("off: %v", err)
	}
	if _, err := NewAccess(Policy{Mode: ModeWorkspaceWrite, Workspace: "rel"}); !errors.Is(err, ErrBadPolicy) {
		t.Errorf("relative workspace: %v", err)
	}
}

func TestWritableRoots(t *testing.T) {
	t.Parallel()
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: "/w", TempDir: "/t", Writable: []string{"/c"}}
	if got := strings.Join(p.WritableRoots(), " "); got != "/t /w /c" {
		t.Errorf("workspace-write: %s", got)
	}
	p.Mode = ModeReadOnly
	if got := strings.Join(p.WritableRoots(), " "); got != "/t" {
		t.Errorf("read-only: %s", got)
	}
}

// FuzzDecide: whatever path a model names, Decide allows a read only
// outside every protected path (or inside a readable one) and /proc, and
// a write only below a writable root and outside every protected path;
// a refusal is always an *AccessError.
func FuzzDecide(f *testing.F) {
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: "/w", TempDir: "/t", Writable: []string{"/c"},
		Readable: []string{"/h/.config/odek/skills"}, Protected: DefaultProtected("/h", "/h/.config/odek")}
	a, err := NewAccess(p)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"/w/a", "/h/.ssh/id_rsa", "/proc/self/environ", "/c/../h/.netrc", "/w//x", "/h/.config/odek/skills/s", "/", ""} {
		f.Add(s, false)
		f.Add(s, true)
	}
	under := func(path string, roots ...string) bool {
		for _, r := range roots {
			if isUnder(path, r) {
				return true
			}
		}
		return false
	}
	f.Fuzz(func(t *testing.T, path string, write bool) {
		err := a.Decide(path, write)
		if err != nil {
			var ae *AccessError
			if !errors.As(err, &ae) || ae.Error() == "" {
				t.Fatalf("%q: %v is not an AccessError", path, err)
			}
			return
		}
		switch {
		case !filepath.IsAbs(path) || filepath.Clean(path) != path:
			t.Fatalf("%q allowed: not canonical", path)
		case under(path, "/proc"):
			t.Fatalf("%q allowed: /proc", path)
		case write && (!under(path, "/w", "/t", "/c") || under(path, p.Protected...)):
			t.Fatalf("write of %q allowed", path)
		case !write && under(path, p.Protected...) && !under(path, p.Readable...):
			t.Fatalf("read of %q allowed", path)
		}
	})
}

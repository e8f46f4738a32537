//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func openT(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// readKind is what a Guard says of reading path, opened the way the path
// tools open it: its directory, then the last name.
func readKind(t *testing.T, a *Access, path string) Kind {
	t.Helper()
	return kindOf(t, a.Guard().Read(openT(t, filepath.Dir(path)), openT(t, path), path))
}

// The Guard judges what was opened, not its name: a hard link to a
// protected file, a protected directory moved into the workspace after
// the map was built, a bind mount of one and a proc file system are
// refused under names Decide allows.
func TestGuardReadJudgesTheOpenedFile(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	a := m.access(t, ModeWorkspaceWrite)
	mkfile(t, m.ws+"/plain.go", "package x")
	if err := os.Link(m.home+"/.netrc", m.ws+"/netrc-link"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(m.home+"/.ssh", m.ws+"/moved"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]Kind{
		m.ws + "/plain.go":              0,
		m.outside:                       0,
		m.ws + "/netrc-link":            Protected,
		m.ws + "/moved/id_rsa":          Protected, // gone from its name: the identity the map took holds it
		m.ws + "/moved":                 Protected,
		m.odekHome + "/skills/s.md":     0, // readable inside the protected odek home
		m.odekHome + "/config.json":     Protected,
		m.home + "/.config/odek/skills": 0,
	} {
		if got := readKind(t, a, path); got != want {
			t.Errorf("%s: kind %d, want %d", path, got, want)
		}
		if _, err := os.Stat(path); err != nil {
			t.Fatal(err)
		}
	}
	// A directory opened by itself (no parent given) is walked from itself.
	if got := kindOf(t, a.Guard().Read(nil, openT(t, m.ws+"/moved"), m.ws+"/moved")); got != Protected {
		t.Errorf("the moved directory by itself: kind %d", got)
	}
}

func TestGuardWrite(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	a, ro := m.access(t, ModeWorkspaceWrite), m.access(t, ModeReadOnly)
	for _, d := range []string{m.ws + "/sub", m.cache + "/go-build"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(m.home+"/.ssh", m.ws+"/moved"); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]Kind{
		m.ws: 0, m.ws + "/sub": 0, m.tmp: 0, m.cache + "/go-build": 0,
		m.outside: OutsideWritable, m.home: OutsideWritable,
		m.ws + "/moved": Protected,
	} {
		if got := kindOf(t, a.Guard().Write(openT(t, dir), dir)); got != want {
			t.Errorf("write into %s: kind %d, want %d", dir, got, want)
		}
		if got := kindOf(t, ro.Guard().Write(openT(t, dir), dir)); got != ReadOnly {
			t.Errorf("read-only, write into %s: kind %d", dir, got)
		}
	}
	// A directory opened under a writable root's name but not the one
	// the map held (the root was replaced) is outside every root.
	if err := os.Rename(m.ws, m.ws+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(m.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := kindOf(t, a.Guard().Write(openT(t, m.ws), m.ws)); got != OutsideWritable {
		t.Errorf("a replaced workspace: kind %d", got)
	}
}

func TestGuardEntry(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	a := m.access(t, ModeWorkspaceWrite)
	mkfile(t, m.ws+"/plain.go", "x")
	if err := os.Link(m.home+"/.netrc", m.ws+"/netrc-link"); err != nil {
		t.Fatal(err)
	}
	g := a.Guard()
	if err := g.Read(nil, openT(t, m.ws), m.ws); err != nil {
		t.Fatal(err)
	}
	entry := func(path, name string) Kind { return kindOf(t, g.Entry(int(openT(t, path).Fd()), name)) }
	if k := entry(m.ws+"/plain.go", m.ws+"/plain.go"); k != 0 {
		t.Errorf("plain file: %d", k)
	}
	if k := entry(m.ws+"/netrc-link", m.ws+"/netrc-link"); k != Protected {
		t.Errorf("hard link to .netrc: %d", k)
	}
	if k := entry(m.ws, m.home+"/.ssh"); k != Protected {
		t.Errorf("a protected name: %d", k)
	}
	if k := entry(m.ws, "/proc"); k != ProcessFiles {
		t.Errorf("/proc by name: %d", k)
	}
	// Below a readable root every entry passes.
	skills := m.odekHome + "/skills"
	free := a.Guard()
	if err := free.Read(nil, openT(t, skills), skills); err != nil {
		t.Fatal(err)
	}
	if err := free.Entry(int(openT(t, skills+"/s.md").Fd()), skills+"/s.md"); err != nil {
		t.Errorf("below a readable root: %v", err)
	}
}

// BenchmarkGuardRead is the map's cost per read_file: a Guard (the
// protected paths' identities) and a walk up from the file's directory.
func BenchmarkGuardRead(b *testing.B) {
	m := newMapTree(b)
	a, err := NewAccess(m.policy(ModeWorkspaceWrite))
	if err != nil {
		b.Fatal(err)
	}
	deep := filepath.Join(m.ws, "a", "b", "c", "d")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(deep+"/f.go", []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	dir, _ := os.Open(deep)
	f, _ := os.Open(deep + "/f.go")
	defer dir.Close()
	defer f.Close()
	b.ResetTimer()
	for b.Loop() {
		if err := a.Guard().Read(dir, f, deep+"/f.go"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewAccess is the map's cost at a run's start, prepared.
func BenchmarkNewAccess(b *testing.B) {
	home, _ := os.UserHomeDir()
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: b.TempDir(), TempDir: b.TempDir(), Protected: DefaultProtected(home, home+"/.odek")}
	for b.Loop() {
		a, err := NewAccess(p)
		if err != nil {
			b.Fatal(err)
		}
		a.Prepare()
	}
}

// A writable path behind a symlink is granted to no command (the
// launcher will not hold it), so the path tools write neither there nor
// where it leads.
func TestAccessRootBehindASymlinkGrantsNothing(t *testing.T) {
	t.Parallel()
	m := newMapTree(t)
	real := filepath.Join(m.outside, "realcache")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(m.home, "linkcache")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	p := m.policy(ModeWorkspaceWrite)
	p.Writable = []string{link}
	a, err := NewAccess(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := kindOf(t, a.Decide(real+"/x", true)); got != OutsideWritable {
		t.Errorf("where the link leads, by name: kind %d", got)
	}
	if got := kindOf(t, a.Guard().Write(openT(t, real), real)); got != OutsideWritable {
		t.Errorf("where the link leads, opened: kind %d", got)
	}
}

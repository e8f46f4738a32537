//go:build unix

package safepath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// impls are openat2 and the component walk (the same on systems without
// openat2); tests using them must not run in parallel.
var impls = []struct {
	name string
	walk bool
}{{"openat2", false}, {"walk", true}}

func use(t *testing.T, walk bool) {
	t.Helper()
	prev := ForceWalk(walk)
	t.Cleanup(func() { ForceWalk(prev) })
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func openDir(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := OpenRoot(p)
	must(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// tree is root/a/b/f, root/link -> a (a symlink inside), root/out -> an
// outside directory holding secret.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o700))
	must(t, os.WriteFile(filepath.Join(root, "a", "b", "f"), []byte("x"), 0o600))
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600))
	must(t, os.Symlink("a", filepath.Join(root, "link")))
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	return root, outside
}

func TestOpenBeneathRefusesEscapesAndSymlinks(t *testing.T) {
	root, _ := tree(t)
	dir := openDir(t, root)
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			use(t, impl.walk)
			for rel, want := range map[string]error{
				"../x": ErrEscapes, "a/../../x": ErrEscapes, "/etc/passwd": ErrEscapes,
				"link/b/f": ErrSymlink, "out/secret": ErrSymlink, "link": ErrSymlink,
				"a/b/f/g": ErrNotDir, "a/missing": fs.ErrNotExist,
			} {
				f, err := OpenBeneath(dir, rel, FileFlags)
				if !errors.Is(err, want) {
					if f != nil {
						f.Close()
					}
					t.Errorf("%q: err = %v, want %v", rel, err, want)
				}
			}
			f, err := OpenBeneath(dir, "a/b/f", FileFlags)
			must(t, err)
			f.Close()
			f, err = OpenBeneath(dir, ".", DirFlags)
			must(t, err)
			fi, err := f.Stat()
			must(t, err)
			f.Close()
			if !fi.IsDir() {
				t.Errorf(`"." opened %v, want the directory`, fi.Mode())
			}
		})
	}
}

func TestWalkRefusesOddComponents(t *testing.T) {
	root := t.TempDir()
	must(t, os.Mkdir(filepath.Join(root, "a"), 0o700))
	dir := openDir(t, root)
	for _, rel := range []string{"", "a/", "a//b", "a/./b", "./a", "..", "a/.."} {
		fd, err := walkBeneath(int(dir.Fd()), rel, FileFlags)
		if !errors.Is(err, ErrEscapes) {
			closeFD(fd)
			t.Errorf("%q: err = %v, want ErrEscapes", rel, err)
		}
	}
}

func TestOpenRoot(t *testing.T) {
	root, _ := tree(t)
	if _, err := OpenRoot(filepath.Join(root, "link")); !errors.Is(err, ErrSymlink) {
		t.Errorf("a root through a symlink: %v", err)
	}
	if _, err := OpenRoot("relative/dir"); !errors.Is(err, ErrEscapes) {
		t.Errorf("a relative root: %v", err)
	}
	f, err := OpenRoot("/")
	must(t, err)
	f.Close()
}

func TestMkdirAll(t *testing.T) {
	root, outside := tree(t)
	dir := openDir(t, root)
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			use(t, impl.walk)
			sub := "new-" + impl.name + "/x/y"
			f, err := MkdirAll(dir, sub, 0o755)
			must(t, err)
			f.Close()
			if fi, err := os.Lstat(filepath.Join(root, sub)); err != nil || !fi.IsDir() {
				t.Fatalf("%s not made: %v", sub, err)
			}
			f, err = MkdirAll(dir, "a/b", 0o755) // exists
			must(t, err)
			f.Close()
			for rel, want := range map[string]error{"out/new": ErrSymlink, "link/new": ErrSymlink, "a/b/f/new": ErrNotDir, "../new": ErrEscapes} {
				if f, err := MkdirAll(dir, rel, 0o755); !errors.Is(err, want) {
					if f != nil {
						f.Close()
					}
					t.Errorf("%q: err = %v, want %v", rel, err, want)
				}
			}
			if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
				t.Fatal("MkdirAll made a directory outside through a symlink")
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	root, outside := tree(t)
	dir := openDir(t, filepath.Join(root, "a"))
	must(t, WriteFile(dir, "new", []byte("hello"), 0o640))
	got, err := os.ReadFile(filepath.Join(root, "a", "new"))
	if err != nil || string(got) != "hello" {
		t.Fatalf("new file %q %v", got, err)
	}
	if m, err := Lstat(dir, "new"); err != nil || m != 0o640 {
		t.Fatalf("mode %v %v", m, err)
	}
	// A symlink at the name is replaced, never written through.
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "a", "ln")))
	must(t, WriteFile(dir, "ln", []byte("mine"), 0o644))
	if s, _ := os.ReadFile(filepath.Join(outside, "secret")); string(s) != "s" {
		t.Fatalf("wrote through a symlink: outside now %q", s)
	}
	if m, _ := Lstat(dir, "ln"); !m.IsRegular() {
		t.Fatalf("ln is %v, want a regular file", m)
	}
	if err := WriteFile(dir, "b", []byte("x"), 0o644); err == nil {
		t.Fatal("a file renamed over a directory")
	}
	for _, bad := range []string{"", ".", "..", "b/f"} {
		if err := WriteFile(dir, bad, nil, 0o644); !errors.Is(err, ErrEscapes) {
			t.Errorf("name %q: %v", bad, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(root, "a"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	long := strings.Repeat("n", 250)
	must(t, WriteFile(dir, long, []byte("x"), 0o644))
}

func TestLstatAndReadlink(t *testing.T) {
	root, outside := tree(t)
	dir := openDir(t, root)
	for name, want := range map[string]fs.FileMode{"a": fs.ModeDir, "link": fs.ModeSymlink} {
		if m, err := Lstat(dir, name); err != nil || m.Type() != want {
			t.Errorf("%s: %v %v, want %v", name, m.Type(), err, want)
		}
	}
	if target, err := Readlink(dir, "out"); err != nil || target != outside {
		t.Errorf("Readlink = %q %v", target, err)
	}
	long := strings.Repeat("x/", 300)
	must(t, os.Symlink(long, filepath.Join(root, "long")))
	if target, err := Readlink(dir, "long"); err != nil || target != long {
		t.Errorf("long target: %d bytes, %v", len(target), err)
	}
	if runtime.GOOS == "linux" {
		must(t, mkfifo(filepath.Join(root, "fifo")))
		if m, err := Lstat(dir, "fifo"); err != nil || m&fs.ModeIrregular == 0 {
			t.Errorf("fifo: %v %v", m, err)
		}
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if _, err := Lstat(dir, bad); !errors.Is(err, ErrEscapes) {
			t.Errorf("Lstat %q: %v", bad, err)
		}
		if _, err := Readlink(dir, bad); !errors.Is(err, ErrEscapes) {
			t.Errorf("Readlink %q: %v", bad, err)
		}
	}
}

package builtin

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/safepath"
)

// An approved path outside the working directory is reached from "/", still
// following no symlink: the canonical path the classifier resolved.
func TestOutsidePathsThroughSafepath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no safe open on this platform")
	}
	tools, _, _ := setup(t)
	outside := t.TempDir()
	target := filepath.Join(outside, "deep", "new.txt")
	out, err := call(t, tools["write_file"], `{"path":"`+target+`","content":"hi\n"}`)
	if err != nil || !strings.HasPrefix(out, "created ") {
		t.Fatalf("approved outside write: %v %s", err, out)
	}
	out, err = call(t, tools["read_file"], `{"path":"`+target+`"}`)
	if err != nil || !strings.Contains(out, "     1\thi") {
		t.Fatalf("approved outside read: %v %s", err, out)
	}
	out, err = call(t, tools["list_dir"], `{"path":"`+outside+`","depth":2}`)
	if err != nil || !strings.Contains(out, "deep/new.txt") {
		t.Fatalf("approved outside list: %v %s", err, out)
	}
	// A symlink the classifier followed is fine: the tool opens its target.
	link := filepath.Join(outside, "link")
	if err := os.Symlink(filepath.Join(outside, "deep"), link); err != nil {
		t.Fatal(err)
	}
	if out, err := call(t, tools["read_file"], `{"path":"`+link+`/new.txt"}`); err != nil || !strings.Contains(out, "hi") {
		t.Fatalf("read through a symlink the check resolved: %v %s", err, out)
	}
}

func TestSplitResolved(t *testing.T) {
	tools, root, _ := setup(t)
	ws := tools["read_file"].(*readFile).ws
	for resolved, want := range map[string][2]string{
		root:               {root, "."},
		root + "/a/b":      {root, "a/b"},
		root + "x/y":       {"/", strings.TrimPrefix(root, "/") + "x/y"},
		"/etc/passwd":      {"/", "etc/passwd"},
		"/":                {"/", "."},
		filepath.Dir(root): {"/", strings.TrimPrefix(filepath.Dir(root), "/")},
	} {
		base, rel, err := ws.split(resolved)
		if err != nil || base != want[0] || rel != want[1] {
			t.Errorf("split(%q) = %q, %q, %v; want %q", resolved, base, rel, err, want)
		}
	}
	for _, bad := range []string{"", "relative", "/a/../b", "/a/"} {
		if _, _, err := ws.split(bad); !errors.Is(err, errUnresolved) {
			t.Errorf("split(%q): %v, want errUnresolved", bad, err)
		}
	}
}

func TestPathErrSaysWhatChanged(t *testing.T) {
	err := pathErr(safepath.ErrSymlink)
	if !errors.Is(err, safepath.ErrSymlink) || !strings.Contains(err.Error(), "changed after it was checked") {
		t.Fatalf("pathErr = %v", err)
	}
	if pathErr(nil) != nil {
		t.Fatal("pathErr(nil) is not nil")
	}
}

// openDir opens a directory for the walks, closed when the test ends.
func openDir(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// The walk reads its root through a descriptor of its own: the same open
// directory walks twice alike.
func TestWalkBeneathTwice(t *testing.T) {
	_, root, _ := setup(t)
	write(t, root, "a/b.txt", "x")
	dir := openDir(t, root)
	for range 2 {
		var seen []string
		err := walkBeneath(dir, func(rel string, _ os.DirEntry, _ *os.File) error {
			seen = append(seen, rel)
			return nil
		}, nil)
		if err != nil || strings.Join(seen, ",") != "a,a/b.txt" {
			t.Fatalf("walk saw %q, %v", seen, err)
		}
	}
}

// A symlink found where the check resolved a file (swapped in after the
// re-check) is refused as a path that changed, not replaced nor written
// through: the link and the file it points to are left as they were.
func TestWriteAtomicRefusesASymlinkInPlace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no safe open on this platform")
	}
	tools, root, _ := setup(t)
	ws := tools["write_file"].(*writeFile).ws
	write(t, root, "target.txt", "kept\n")
	link := filepath.Join(root, "link")
	if err := os.Symlink("target.txt", link); err != nil {
		t.Fatal(err)
	}
	_, err := ws.writeAtomic(link, []byte("pwned\n"))
	if !errors.Is(err, safepath.ErrSymlink) || !strings.Contains(err.Error(), "changed after it was checked") {
		t.Fatalf("writeAtomic over a symlink = %v, want the path-changed error", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "target.txt")); string(data) != "kept\n" {
		t.Fatalf("target.txt = %q", data)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
}

package agentsmd

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// repo is a repository on disk: root (with .git), root/pkg/deep as the
// working directory, and an odek home beside it.
type repo struct{ base, root, sub, home string }

func newRepo(t *testing.T) repo {
	t.Helper()
	base := t.TempDir()
	r := repo{base: base, root: filepath.Join(base, "repo"), home: filepath.Join(base, "home")}
	r.sub = filepath.Join(r.root, "pkg", "deep")
	for _, d := range []string{filepath.Join(r.root, ".git"), r.sub, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestDiscoverOrder: the operator's file first, then the repository's from
// its root down to the working directory; a directory between without one
// is passed over, and one above the root is never read.
func TestDiscoverOrder(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	write(t, filepath.Join(r.base, FileName), "above the repository\n")
	write(t, filepath.Join(r.home, FileName), "operator: never push\n")
	write(t, filepath.Join(r.root, FileName), "root: run make test\n")
	write(t, filepath.Join(r.sub, FileName), "deep: use table tests\n")
	files, warns := Discover(Options{Dir: r.sub, Home: r.home})
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	want := []struct{ name, scope, text string }{
		{"$ODEK_HOME/AGENTS.md", ScopeOperator, "operator: never push\n"},
		{"AGENTS.md", ScopeRepository, "root: run make test\n"},
		{"pkg/deep/AGENTS.md", ScopeRepository, "deep: use table tests\n"},
	}
	if len(files) != len(want) {
		t.Fatalf("found %d files, want %d: %+v", len(files), len(want), files)
	}
	for i, w := range want {
		f := files[i]
		if f.Name != w.name || f.Scope != w.scope || f.Text != w.text || f.SHA256 != hash(w.text) ||
			f.Bytes != int64(len(w.text)) || f.Shown != len(w.text) || f.Truncated {
			t.Errorf("file %d = %+v, want %s (%s) %q", i, f, w.name, w.scope, w.text)
		}
	}
	got := Render(files)
	iOp, iRoot, iDeep := strings.Index(got, "never push"), strings.Index(got, "make test"), strings.Index(got, "table tests")
	if iOp < 0 || iOp > iRoot || iRoot > iDeep || strings.Contains(got, "above the repository") {
		t.Errorf("rendered out of order:\n%s", got)
	}
}

// TestDiscoverOutsideRepository: without a repository only the working
// directory's own file is read.
func TestDiscoverOutsideRepository(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(base, "a", FileName), "parent")
	write(t, filepath.Join(dir, FileName), "own")
	files, _ := Discover(Options{Dir: dir})
	if len(files) != 1 || files[0].Text != "own" || files[0].Name != FileName {
		t.Errorf("files = %+v, want the directory's own alone", files)
	}
}

// TestDiscoverCap: a 2 MiB file is cut at the cap with a notice the model
// reads, is not read past it, and a later file finds the cap used up. The
// operator's file has its own cap.
func TestDiscoverCap(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	line := strings.Repeat("x", 127) + "\n" // 32 lines fill the cap exactly
	big := strings.Repeat(line, 2<<20/len(line)+1)
	write(t, filepath.Join(r.root, FileName), big)
	write(t, filepath.Join(r.sub, FileName), "deep rules\n")
	write(t, filepath.Join(r.home, FileName), strings.Repeat("o", 5000))
	files, _ := Discover(Options{Dir: r.sub, Home: r.home, MaxBytes: 4096})
	if len(files) != 3 {
		t.Fatalf("files = %d, want 3", len(files))
	}
	op, root, deep := files[0], files[1], files[2]
	if !op.Truncated || op.Shown != 4096 {
		t.Errorf("operator file: shown %d truncated %v, want 4096 of its own cap", op.Shown, op.Truncated)
	}
	if !root.Truncated || root.Shown != 4096 || root.Bytes != int64(len(big)) ||
		!strings.HasSuffix(root.Text, "\n") || root.SHA256 != hash(root.Text) {
		t.Errorf("root file: shown %d of %d, truncated %v, ends %q", root.Shown, root.Bytes, root.Truncated, root.Text[max(len(root.Text)-5, 0):])
	}
	if !deep.Truncated || deep.Shown != 0 || deep.Text != "" {
		t.Errorf("deep file: %+v, want it left out: the root used the cap", deep)
	}
	got := Render(files)
	for _, want := range []string{
		"[odek: AGENTS.md is cut here: 4096 of its " + strconv.Itoa(len(big)) + " bytes are shown (agents_max_bytes)]",
		"[odek: pkg/deep/AGENTS.md (11 bytes) is left out: the project instructions limit (agents_max_bytes) was reached]",
		"[odek: $ODEK_HOME/AGENTS.md is cut here: 4096 of its 5000 bytes are shown (agents_max_bytes)]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered block lacks %q", want)
		}
	}
	if len(got) > 3*4096+2048 {
		t.Errorf("rendered block is %d bytes: the caps did not hold", len(got))
	}
	// With the default cap a 2 MiB file gives the model 32 KiB.
	files, _ = Discover(Options{Dir: r.root})
	if len(files) != 1 || files[0].Shown > DefaultMaxBytes || !files[0].Truncated {
		t.Errorf("default cap: %+v", files)
	}
}

// TestDiscoverSkips: a symlink out of the repository, a FIFO and a
// directory are skipped with a warning (the FIFO without blocking); a
// symlink inside the repository is followed.
func TestDiscoverSkips(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	secret := filepath.Join(r.base, "credentials")
	write(t, secret, "aws_secret_access_key = hunter2")
	if err := os.Symlink(secret, filepath.Join(r.root, FileName)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(r.root, "pkg", FileName), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.root, "CLAUDE.md"), "inside rules")
	if err := os.Symlink("../../CLAUDE.md", filepath.Join(r.sub, FileName)); err != nil {
		t.Fatal(err)
	}
	files, warns := Discover(Options{Dir: r.sub})
	if len(files) != 1 || files[0].Text != "inside rules" || files[0].Name != "pkg/deep/AGENTS.md" {
		t.Errorf("files = %+v, want the symlink inside the repository alone", files)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "outside the repository") || !strings.Contains(warns[1], "not a regular file") {
		t.Errorf("warnings = %q", warns)
	}
	for _, f := range files {
		if strings.Contains(f.Text, "hunter2") {
			t.Errorf("a file outside the repository was read")
		}
	}
}

// TestDiscoverNone: no files, no block.
func TestDiscoverNone(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	write(t, filepath.Join(r.root, FileName), "  \n\n")
	files, warns := Discover(Options{Dir: r.sub, Home: r.home})
	if len(files) != 0 || len(warns) != 0 || Render(files) != "" {
		t.Errorf("files %+v warns %q", files, warns)
	}
}

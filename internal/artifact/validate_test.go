package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const secret = "TOPSECRET-CONTENT"

type fixture struct {
	root, outside, rootLink string
	okPath, okSum           string
	okSize                  int64
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	root, outside := t.TempDir(), t.TempDir()
	fx := fixture{root: root, outside: outside, okPath: filepath.Join(root, "ok.txt")}
	must(t, os.WriteFile(fx.okPath, []byte("hello "+secret), 0o600))
	sum := sha256.Sum256([]byte("hello " + secret))
	fx.okSum, fx.okSize = hex.EncodeToString(sum[:]), int64(len("hello "+secret))
	must(t, os.Mkdir(filepath.Join(root, "dir"), 0o700))
	must(t, os.Mkdir(filepath.Join(root, "dir", "sub"), 0o700))
	must(t, os.Mkdir(filepath.Join(root, "dir", "real"), 0o700))
	must(t, os.WriteFile(filepath.Join(root, "dir", "real", "inner.txt"), []byte("inner"), 0o600))
	must(t, os.Symlink(filepath.Join(root, "dir", "real"), filepath.Join(root, "dirlink")))
	must(t, os.Symlink("../real", filepath.Join(root, "dir", "sub", "lnk")))
	must(t, os.WriteFile(filepath.Join(root, "linked.txt"), []byte("two names"), 0o600))
	must(t, os.Link(filepath.Join(root, "linked.txt"), filepath.Join(root, "hardlink")))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secret), 0o600))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "escape")))
	must(t, os.Symlink(fx.okPath, filepath.Join(root, "inside-link")))
	must(t, os.Symlink(outside, filepath.Join(root, "outdir")))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600))
	big, err := os.Create(filepath.Join(root, "big.bin"))
	must(t, err)
	must(t, big.Truncate(MaxArtifactBytes+1)) // sparse: no real disk use
	must(t, big.Close())
	fx.rootLink = filepath.Join(t.TempDir(), "rootlink")
	must(t, os.Symlink(root, fx.rootLink))
	return fx
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func i64(n int64) *int64 { return &n }

func okRef(uri string) Ref {
	return Ref{Schema: SchemaArtifactRef, ID: "r1", URI: uri, MediaType: "text/plain"}
}

func TestValidate(t *testing.T) {
	fx := newFixture(t)
	f := func(p string) string { return "file://" + p }
	with := func(uri string, edit func(*Ref)) Ref {
		r := okRef(uri)
		if edit != nil {
			edit(&r)
		}
		return r
	}
	roots := []string{fx.root}
	tests := []struct {
		name    string
		ref     Ref
		roots   []string
		wantErr string // "" = valid
	}{
		{"plain file", okRef(f(fx.okPath)), roots, ""},
		{"size and hash match", with(f(fx.okPath), func(r *Ref) { r.SizeBytes = i64(fx.okSize); r.SHA256 = fx.okSum }), roots, ""},
		{"percent-encoded name", okRef(f(fx.root + "/ok%2Etxt")), roots, ""},
		{"symlink inside root", okRef(f(filepath.Join(fx.root, "inside-link"))), roots, "path goes through a symlink"},
		{"symlinked root, real path", okRef(f(fx.okPath)), []string{fx.rootLink}, ""},
		{"symlinked root, link path", okRef(f(filepath.Join(fx.rootLink, "ok.txt"))), []string{fx.rootLink}, ""},
		{"second root matches", okRef(f(fx.okPath)), []string{fx.outside, fx.root}, ""},
		{"wrong schema", with(f(fx.okPath), func(r *Ref) { r.Schema = "odek.artifact-ref/v2" }), roots, `schema "odek.artifact-ref/v2" is not`},
		{"missing id", with(f(fx.okPath), func(r *Ref) { r.ID = "" }), roots, "id is required"},
		{"missing uri", with("", nil), roots, "uri is required"},
		{"missing media type", with(f(fx.okPath), func(r *Ref) { r.MediaType = "" }), roots, "media_type is required"},
		{"empty roots", okRef(f(fx.okPath)), nil, "no artifact_roots are configured"},
		{"blank root only", okRef(f(fx.okPath)), []string{"  "}, "none of the 1 configured artifact_roots"},
		{"relative root only", okRef(f(fx.okPath)), []string{"."}, "none of the 1 configured artifact_roots"},
		{"missing root only", okRef(f(fx.okPath)), []string{filepath.Join(fx.outside, "nope")}, "none of the 1 configured"},
		{"blank root does not confine everything", okRef(f(filepath.Join(fx.outside, "secret.txt"))), []string{"", fx.root}, "outside every configured artifact root"},
		{"traversal", okRef(f(fx.root + "/../" + filepath.Base(fx.outside) + "/secret.txt")), roots, "not clean"},
		{"encoded traversal", okRef(f(fx.root + "/%2e%2e/x")), roots, "not clean"},
		{"dot segment", okRef(f(fx.root + "/./ok.txt")), roots, "not clean"},
		{"double slash", okRef(f(fx.root + "//ok.txt")), roots, "not clean"},
		{"trailing slash", okRef(f(fx.root + "/dir/")), roots, "not clean"},
		{"relative path", okRef("file:ok.txt"), roots, "not absolute"},
		{"host", okRef("file://example.com" + fx.okPath), roots, "must not name a host"},
		{"localhost", okRef("file://localhost" + fx.okPath), roots, "must not name a host"},
		{"userinfo", okRef("file://user@" + fx.okPath), roots, "userinfo"},
		{"query", okRef(f(fx.okPath) + "?x=1"), roots, "query"},
		{"empty query", okRef(f(fx.okPath) + "?"), roots, "query"},
		{"fragment", okRef(f(fx.okPath) + "#frag"), roots, "fragment"},
		{"http scheme", okRef("http://example.com/x"), roots, `uri scheme "http" is not "file"`},
		{"no scheme", okRef(fx.okPath), roots, `uri scheme "" is not "file"`},
		{"NUL byte", okRef(f(fx.root + "/a%00b")), roots, "NUL"},
		{"unparseable", okRef("file://%zz"), roots, "not a valid URI"},
		{"missing file", okRef(f(filepath.Join(fx.root, "missing.txt"))), roots, "file not found"},
		{"symlink escape", okRef(f(filepath.Join(fx.root, "escape"))), roots, "path goes through a symlink"},
		{"symlinked dir escape", okRef(f(filepath.Join(fx.root, "outdir", "secret.txt"))), roots, "path goes through a symlink"},
		{"symlink escape via symlinked root", okRef(f(filepath.Join(fx.rootLink, "escape"))), []string{fx.rootLink}, "path goes through a symlink"},
		{"symlinked dir inside root", okRef(f(filepath.Join(fx.root, "dirlink", "inner.txt"))), roots, "path goes through a symlink"},
		{"symlink in the middle", okRef(f(filepath.Join(fx.root, "dir", "sub", "lnk", "inner.txt"))), roots, "path goes through a symlink"},
		{"file as a directory", okRef(f(filepath.Join(fx.okPath, "x"))), roots, "a component of the path is not a directory"},
		{"root itself", okRef(f(fx.root)), roots, "not a regular file (directory)"},
		{"hard link", okRef(f(filepath.Join(fx.root, "hardlink"))), roots, "file has 2 hard links; an artifact must have exactly one"},
		{"hard link target", okRef(f(filepath.Join(fx.root, "linked.txt"))), roots, "file has 2 hard links"},
		{"outside root", okRef(f(filepath.Join(fx.outside, "secret.txt"))), roots, "outside every"},
		{"sibling prefix", okRef(f(fx.okPath)), []string{fx.root[:len(fx.root)-1]}, "none of the 1"},
		{"directory", okRef(f(filepath.Join(fx.root, "dir"))), roots, "not a regular file (directory)"},
		{"fifo", okRef(f(filepath.Join(fx.root, "fifo"))), roots, "not a regular file (named pipe)"},
		{"too big", okRef(f(filepath.Join(fx.root, "big.bin"))), roots, "exceeding the 67108864-byte artifact limit"},
		{"negative size", with(f(fx.okPath), func(r *Ref) { r.SizeBytes = i64(-1) }), roots, "size_bytes -1 is negative"},
		{"size mismatch", with(f(fx.okPath), func(r *Ref) { r.SizeBytes = i64(3) }), roots, "size_bytes 3 does not match the file size 23"},
		{"short hash", with(f(fx.okPath), func(r *Ref) { r.SHA256 = "abc" }), roots, "exactly 64 lowercase hex"},
		{"uppercase hash", with(f(fx.okPath), func(r *Ref) { r.SHA256 = strings.ToUpper(fx.okSum) }), roots, "exactly 64 lowercase hex"},
		{"non-hex hash", with(f(fx.okPath), func(r *Ref) { r.SHA256 = strings.Repeat("g", 64) }), roots, "exactly 64 lowercase hex"},
		{"hash mismatch", with(f(fx.okPath), func(r *Ref) { r.SHA256 = strings.Repeat("0", 64) }), roots, "sha256 mismatch: ref says " + strings.Repeat("0", 64) + ", file has " + fx.okSum},
	}
	for _, impl := range openImpls {
		for _, tt := range tests {
			t.Run(impl.name+"/"+tt.name, func(t *testing.T) {
				impl.use(t)
				checkValidate(t, fx, tt.ref, tt.roots, tt.wantErr)
			})
		}
	}
}

// checkValidate runs Validate and checks the verified file (wantErr "") or
// that the error contains wantErr, names the ref and leaks nothing.
func checkValidate(t *testing.T, fx fixture, ref Ref, roots []string, wantErr string) {
	t.Helper()
	v, err := Validate(ref, roots)
	if wantErr == "" {
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		if v.SHA256 != fx.okSum || v.Size != fx.okSize || v.Path != mustEval(t, fx.okPath) {
			t.Fatalf("verified = %+v", v)
		}
		return
	}
	if err == nil {
		t.Fatalf("Validate accepted %q", ref.URI)
	}
	msg := err.Error()
	if !strings.Contains(msg, wantErr) {
		t.Fatalf("error %q does not contain %q", msg, wantErr)
	}
	var re *RefError
	if !errors.As(err, &re) {
		t.Fatalf("error %T is not a *RefError", err)
	}
	if ref.ID != "" && !strings.HasPrefix(msg, `artifact "r1": `) {
		t.Errorf("error %q does not name the ref id", msg)
	}
	if strings.Contains(msg, secret) || strings.Contains(msg, fx.root) || strings.Contains(msg, fx.outside) {
		t.Errorf("error %q leaks a path or file contents", msg)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	must(t, err)
	return r
}

func TestValidateRootIsFilesystemRoot(t *testing.T) {
	fx := newFixture(t)
	if _, err := Validate(okRef("file://"+fx.okPath), []string{"/"}); err != nil {
		t.Fatalf("root / should contain every file: %v", err)
	}
}

func TestValidateSiblingPrefixIsNotInside(t *testing.T) {
	base := t.TempDir()
	must(t, os.Mkdir(filepath.Join(base, "ab"), 0o700))
	must(t, os.Mkdir(filepath.Join(base, "abc"), 0o700))
	must(t, os.WriteFile(filepath.Join(base, "abc", "f"), []byte("x"), 0o600))
	_, err := Validate(okRef("file://"+filepath.Join(base, "abc", "f")), []string{filepath.Join(base, "ab")})
	if err == nil || !strings.Contains(err.Error(), "outside every configured artifact root") {
		t.Fatalf("err = %v", err)
	}
}

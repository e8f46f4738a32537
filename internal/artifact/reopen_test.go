package artifact

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestVerifiedOpen(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.txt")
	if err := os.WriteFile(path, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	ref := Ref{Schema: SchemaArtifactRef, ID: "a", URI: "file://" + path, MediaType: "text/plain"}
	v, err := Validate(ref, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	f, err := v.Open()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Grown in place: the size no longer matches.
	os.WriteFile(path, []byte("hello world"), 0o600)
	if _, err := v.Open(); !errors.Is(err, ErrChanged) {
		t.Fatalf("grown: %v", err)
	}
	// Replaced by a symlink: refused, not followed.
	os.Remove(path)
	os.Symlink("/etc/hostname", path)
	if _, err := v.Open(); !errors.Is(err, ErrChanged) {
		t.Fatalf("symlink: %v", err)
	}
	if _, err := (&Verified{}).Open(); !errors.Is(err, ErrUnverified) {
		t.Fatalf("hand-made: %v", err)
	}
}

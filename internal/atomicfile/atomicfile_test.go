package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(got) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %v", got, st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temp files left behind: %v", ents)
	}
}

func TestWriteFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub") // a directory: rename over it fails
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("data"), 0o600); err == nil {
		t.Fatal("renaming over a non-empty directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temp file left behind after failure: %v", ents)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

func TestWriteCache(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index.json")
	for _, v := range []string{"one", "two"} {
		if err := WriteCache(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(got) != "two" || st.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %v", got, st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temp files left behind: %v", ents)
	}
}

package agentrun

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSweepArtifacts(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "artifacts")
	now := time.Now()
	mk := func(name string, age time.Duration) string {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "result-1"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := mk("0123456789abcdef0123456789abcdef", 48*time.Hour)
	fresh := mk("fedcba9876543210fedcba9876543210", time.Hour)
	current := mk("current", 72*time.Hour)
	foreign := mk(".hidden", 72*time.Hour)

	if got := SweepArtifacts(home, 24*time.Hour, now, "current"); len(got) != 1 || got[0] != (SweptDir{Name: filepath.Base(old), Bytes: 1}) {
		t.Errorf("removed %v, want %s (1 byte)", got, filepath.Base(old))
	}
	for p, want := range map[string]bool{old: false, fresh: true, current: true, foreign: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	if got := SweepArtifacts(filepath.Join(home, "missing"), time.Hour, now, ""); got != nil {
		t.Errorf("sweep of a missing dir removed %v", got)
	}
}

func TestIsRunDirName(t *testing.T) {
	for name, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef": true, "20260101-abc.d_e-f": true, "a": true,
		"": false, ".hidden": false, "-x": false, "a/b": false, "a b": false, "é": false,
		string(make([]byte, 129)): false,
	} {
		if got := isRunDirName(name); got != want {
			t.Errorf("isRunDirName(%q) = %v, want %v", name, got, want)
		}
	}
	long := "a"
	for len(long) < 128 {
		long += "b"
	}
	if !isRunDirName(long) || isRunDirName(long+"c") {
		t.Error("128 characters is the limit")
	}
}

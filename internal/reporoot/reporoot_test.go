package reporoot

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	sub := filepath.Join(repo, "a", "b")
	wt := filepath.Join(repo, "a", "wt") // a worktree: .git is a file
	plain := filepath.Join(base, "plain", "x")
	mkdirs(t, filepath.Join(repo, ".git"), sub, filepath.Join(wt, "c"), plain)
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, root string
		found     bool
	}{
		{repo, repo, true},
		{sub, repo, true},
		{filepath.Join(wt, "c"), wt, true},
		{plain, plain, false},
		{sub + "/../b/", repo, true},
	}
	for _, tt := range tests {
		root, found := Find(tt.dir)
		if root != tt.root || found != tt.found {
			t.Errorf("Find(%s) = %s, %v; want %s, %v", tt.dir, root, found, tt.root, tt.found)
		}
	}
}

func TestChain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		root, dir string
		want      []string
	}{
		{"/r", "/r", []string{"/r"}},
		{"/r", "/r/a/b", []string{"/r", "/r/a", "/r/a/b"}},
		{"/r/", "/r/a/", []string{"/r", "/r/a"}},
		{"/", "/a", []string{"/", "/a"}},
		{"/r", "/elsewhere", []string{"/elsewhere"}},
		{"/r", "/rx/a", []string{"/rx/a"}},
	}
	for _, tt := range tests {
		if got := Chain(tt.root, tt.dir); !slices.Equal(got, tt.want) {
			t.Errorf("Chain(%s, %s) = %q, want %q", tt.root, tt.dir, got, tt.want)
		}
	}
}

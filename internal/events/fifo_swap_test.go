//go:build unix

package events

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestJSONLFIFOSwappedBeforeOpen replaces a FIFO that the Lstat check saw
// before it is opened: each replacement is refused at once with its own
// error (not retried as if no reader had come yet), and nothing is written.
func TestJSONLFIFOSwappedBeforeOpen(t *testing.T) {
	tests := []struct {
		name string
		swap func(t *testing.T, path string)
		want error
	}{
		{name: "a regular file", want: ErrNotRegular, swap: func(t *testing.T, path string) {
			replace(t, path, func(tmp string) error { return os.WriteFile(tmp, nil, 0o600) })
		}},
		{name: "a symlink to a FIFO", want: ErrSymlink, swap: func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "other.fifo")
			if err := syscall.Mkfifo(other, 0o600); err != nil {
				t.Fatal(err)
			}
			replace(t, path, func(tmp string) error { return os.Symlink(other, tmp) })
		}},
		{name: "nothing (removed)", want: fs.ErrNotExist, swap: func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := mkfifo(t, 0o600)
			swapped := false
			s, err := openJSONL(context.Background(), path, openOptions{beforeOpen: func(p string) { swapped = true; tt.swap(t, p) }})
			if err == nil {
				_ = s.Close()
				t.Fatal("OpenJSONL accepted the swapped-in file")
			}
			if !swapped || !errors.Is(err, tt.want) {
				t.Fatalf("err = %v (swapped %v), want %v", err, swapped, tt.want)
			}
			if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() && st.Size() != 0 {
				t.Fatalf("%d bytes written to the swapped-in file", st.Size())
			}
		})
	}
}

// replace puts what make creates at path in one rename.
func replace(t *testing.T, path string, make func(tmp string) error) {
	t.Helper()
	tmp := path + ".tmp"
	if err := make(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

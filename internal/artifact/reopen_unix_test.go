//go:build unix

package artifact

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestVerifiedOpenRechecks changes the validated file in one way at a time
// between Validate and Open: each change alone must give ErrChanged, and the
// untouched file must open with its bytes.
func TestVerifiedOpenRechecks(t *testing.T) {
	const content = "hello"
	tests := []struct {
		name    string
		change  func(t *testing.T, v *Verified, path string)
		changed bool
	}{
		{name: "untouched", change: func(*testing.T, *Verified, string) {}},
		{name: "replaced by another file of the same size", changed: true, change: func(t *testing.T, _ *Verified, path string) {
			other := path + ".new"
			must(t, os.WriteFile(other, []byte("HELLO"), 0o600))
			must(t, os.Rename(other, path))
		}},
		{name: "gained a hard link", changed: true, change: func(t *testing.T, _ *Verified, path string) {
			must(t, os.Link(path, path+".link"))
		}},
		{name: "grown in place", changed: true, change: func(t *testing.T, _ *Verified, path string) {
			must(t, os.WriteFile(path, []byte(content+"!"), 0o600))
		}},
		{name: "shrunk in place", changed: true, change: func(t *testing.T, _ *Verified, path string) {
			must(t, os.Truncate(path, int64(len(content)-1)))
		}},
		{name: "replaced by a directory", changed: true, change: func(t *testing.T, _ *Verified, path string) {
			must(t, os.Remove(path))
			must(t, os.Mkdir(path, 0o700))
		}},
		{name: "replaced by a fifo", changed: true, change: func(t *testing.T, _ *Verified, path string) {
			must(t, os.Remove(path))
			must(t, unix.Mkfifo(path, 0o600))
		}},
		// The inode number of a removed file can be handed out again: a fifo
		// that got the validated file's identity, with one link and the
		// validated size, is still not a regular file.
		{name: "replaced by a fifo with the same identity", changed: true, change: func(t *testing.T, v *Verified, path string) {
			must(t, os.Remove(path))
			must(t, unix.Mkfifo(path, 0o600))
			f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
			must(t, err)
			defer f.Close()
			st, err := stat(f)
			must(t, err)
			v.loc.id, v.Size = st.id, st.size
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "a.txt")
			must(t, os.WriteFile(path, []byte(content), 0o600))
			v, err := Validate(Ref{Schema: SchemaArtifactRef, ID: "a", URI: "file://" + path, MediaType: "text/plain"}, []string{root})
			must(t, err)
			tt.change(t, v, path)
			f, err := v.Open()
			if tt.changed {
				if f != nil {
					f.Close()
				}
				if !errors.Is(err, ErrChanged) {
					t.Fatalf("Open = %v, want ErrChanged", err)
				}
				return
			}
			must(t, err)
			defer f.Close()
			got, err := io.ReadAll(f)
			must(t, err)
			if string(got) != content {
				t.Fatalf("read %q, want %q", got, content)
			}
		})
	}
}

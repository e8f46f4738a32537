//go:build unix

package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// readFD reads a file of exactly its limit whole, also when the limit is
// a buffer size it grows through, and refuses one byte more; a reused
// buffer of any size changes nothing. (TestSearchFileSizeCap checks the
// same at MaxSearchFile through the tool.)
func TestReadFDLimit(t *testing.T) {
	dir := t.TempDir()
	limit := 2 * readChunk // a size the buffer grows to: the file fills it exactly
	text := strings.Repeat("0123456789abcde\n", limit/16)
	for _, tc := range []struct {
		size int
		ok   bool
	}{{limit - 1, true}, {limit, true}, {limit + 1, false}, {3 * limit, false}, {readChunk, true}, {10, true}} {
		p := filepath.Join(dir, "f")
		content := (text + "x")[:min(tc.size, limit)] + strings.Repeat("y", max(0, tc.size-limit))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, buf := range [][]byte{nil, make([]byte, 0, readChunk), make([]byte, 0, limit+1)} {
			fd, err := syscall.Open(p, syscall.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			data, _, ok := readFD(fd, buf, limit)
			_ = syscall.Close(fd)
			if ok != tc.ok || ok && string(data) != content {
				t.Errorf("%d bytes (buffer cap %d): ok %v, %d bytes read; want ok %v", tc.size, cap(buf), ok, len(data), tc.ok)
			}
		}
	}
}

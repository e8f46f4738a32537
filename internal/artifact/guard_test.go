package artifact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// registered validates root/<rel> and registers it as "r1" in a new store.
func registered(t *testing.T, root, rel string) (*ReadTool, *Verified) {
	t.Helper()
	v, err := Validate(okRef("file://"+filepath.Join(root, rel)), []string{root})
	must(t, err)
	s := NewStore(t.TempDir())
	must(t, s.Register(*v, "r1"))
	return NewReadTool(s), v
}

func TestReadToolGuardsBetweenReads(t *testing.T) {
	const content = "registered content"
	tests := []struct {
		name   string
		change func(t *testing.T, root string) // applied after a first good read
		want   string
	}{
		{"rewritten in place after the first read", func(t *testing.T, root string) {
			// Same inode, size and mtime, different bytes: only the hash can tell.
			p := filepath.Join(root, "d", "f")
			info, err := os.Stat(p)
			must(t, err)
			must(t, os.WriteFile(p, []byte(strings.ToUpper(content)), 0o600))
			must(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
		}, "content no longer matches its registered sha256"},
		{"replaced by a copy with the same bytes", func(t *testing.T, root string) {
			p := filepath.Join(root, "d", "f")
			must(t, os.WriteFile(p+".new", []byte(content), 0o600))
			must(t, os.Rename(p+".new", p))
		}, "the file was replaced since it was registered"},
		{"hard link added", func(t *testing.T, root string) {
			must(t, os.Link(filepath.Join(root, "d", "f"), filepath.Join(root, "second-name")))
		}, "it has 2 hard links now"},
		{"grown", func(t *testing.T, root string) {
			f, err := os.OpenFile(filepath.Join(root, "d", "f"), os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			_, err = f.WriteString("!")
			must(t, err)
			must(t, f.Close())
		}, "19 bytes now, 18 when registered"},
		{"last component now a symlink to the same file", func(t *testing.T, root string) {
			p := filepath.Join(root, "d", "f")
			must(t, os.Rename(p, p+".real"))
			must(t, os.Symlink("f.real", p))
		}, "cannot be opened safely"},
		{"directory now a symlink to the same directory", func(t *testing.T, root string) {
			d := filepath.Join(root, "d")
			must(t, os.Rename(d, d+".real"))
			must(t, os.Symlink("d.real", d))
		}, "cannot be opened safely"},
		{"root now a symlink to the same directory", func(t *testing.T, root string) {
			must(t, os.Rename(root, root+".real"))
			must(t, os.Symlink(root+".real", root))
			t.Cleanup(func() { _ = os.Remove(root); _ = os.Rename(root+".real", root) })
		}, "cannot be opened safely"},
		{"removed", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "d", "f")))
		}, "is no longer available (removed by cleanup)"},
	}
	for _, impl := range openImpls {
		for _, tt := range tests {
			t.Run(impl.name+"/"+tt.name, func(t *testing.T) {
				impl.use(t)
				root := filepath.Join(t.TempDir(), "root")
				must(t, os.MkdirAll(filepath.Join(root, "d"), 0o700))
				must(t, os.WriteFile(filepath.Join(root, "d", "f"), []byte(content), 0o600))
				tool, _ := registered(t, root, "d/f")
				out, err := readCall(t, tool, `{"id":"r1"}`)
				if err != nil || !strings.Contains(out, "\n"+content+"\n") {
					t.Fatalf("first read: %q %v", out, err)
				}
				tt.change(t, root)
				out, err = readCall(t, tool, `{"id":"r1"}`)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("after change: err = %v, want %q (out %q)", err, tt.want, out)
				}
				if !errors.Is(err, ErrChanged) && !errors.Is(err, ErrRemoved) {
					t.Errorf("error %v is neither ErrChanged nor ErrRemoved", err)
				}
			})
		}
	}
}

func TestReadToolPageClamp(t *testing.T) {
	s := NewStore(t.TempDir())
	size := MaxReadLimit + 10
	data := bytes.Repeat([]byte("x"), size)
	id, err := s.SaveResult("src", "text/plain", data)
	must(t, err)
	tool := NewReadTool(s)
	tests := []struct {
		limit int
		end   int
	}{
		{0, DefaultReadLimit}, // 0 = default
		{1, 1},
		{MaxReadLimit - 1, MaxReadLimit - 1},
		{MaxReadLimit, MaxReadLimit},
		{MaxReadLimit + 1, MaxReadLimit}, // clamped
		{1 << 40, MaxReadLimit},
	}
	for _, tt := range tests {
		out, err := readCall(t, tool, fmt.Sprintf(`{"id":%q,"limit":%d}`, id, tt.limit))
		must(t, err)
		want := fmt.Sprintf("bytes 0..%d of %d — TRUNCATED", tt.end, size)
		header, wrapped, _ := strings.Cut(out, "\n")
		if !strings.Contains(header, want) {
			t.Errorf("limit %d: header %q, want %q", tt.limit, header, want)
		}
		_, body, _ := strings.Cut(wrapped, "\n") // after the wrapper's opening line
		if n := strings.Count(body, "x"); n != tt.end {
			t.Errorf("limit %d: %d bytes served, want %d", tt.limit, n, tt.end)
		}
	}
}

// growingReader is a file that gains bytes (or loses them) between the size
// measurement and the read.
type growingReader struct{ data []byte }

func (g growingReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(g.data)) {
		return 0, io.EOF
	}
	n := copy(p, g.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestScan(t *testing.T) {
	data := make([]byte, 3*scanChunk+17)
	for i := range data {
		data[i] = byte(i * 7)
	}
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	size := int64(len(data))
	pages := []struct{ off, n int64 }{
		{0, 0}, {0, 1}, {0, size}, {5, 10}, {scanChunk - 1, 2}, {scanChunk, scanChunk},
		{scanChunk - 3, scanChunk + 6}, {size - 1, 1}, {size - 17, 17}, {1, 2*scanChunk + 3},
	}
	for _, p := range pages {
		got, page, err := scan(context.Background(), bytes.NewReader(data), size, p.off, p.n)
		if err != nil || got != want {
			t.Fatalf("scan(%d, %d): sum %s err %v", p.off, p.n, got, err)
		}
		if !bytes.Equal(page, data[p.off:p.off+p.n]) {
			t.Errorf("scan(%d, %d): page of %d bytes differs from the file's", p.off, p.n, len(page))
		}
	}
	for _, tt := range []struct {
		name string
		have []byte
		want string
	}{
		{"grew by one byte", append(bytes.Clone(data), 'x'), fmt.Sprintf("%d bytes read, %d expected", size+1, size)},
		{"grew by a chunk", append(bytes.Clone(data), make([]byte, scanChunk)...), "expected"},
		{"shrank by one byte", data[:size-1], fmt.Sprintf("%d bytes read, %d expected", size-1, size)},
		{"empty", nil, fmt.Sprintf("0 bytes read, %d expected", size)},
	} {
		_, _, err := scan(context.Background(), growingReader{tt.have}, size, 0, 0)
		if !errors.Is(err, errSizeChanged) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := scan(ctx, bytes.NewReader(data), size, 0, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if got, _, err := scan(context.Background(), bytes.NewReader(nil), 0, 0, 0); err != nil || got != hex.EncodeToString(sha256.New().Sum(nil)) {
		t.Errorf("empty file: %s %v", got, err)
	}
}

// failingReader fails after its first chunk.
type failingReader struct{}

func (failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off > 0 {
		return 0, errors.New("disk on fire")
	}
	return len(p), nil
}

func TestScanReadError(t *testing.T) {
	if _, _, err := scan(context.Background(), failingReader{}, 2*scanChunk, 0, 0); err == nil || err.Error() != "disk on fire" {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenBeneathRefusesEscapes(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o700))
	must(t, os.WriteFile(filepath.Join(root, "a", "b", "f"), []byte("x"), 0o600))
	dir, err := os.Open(root)
	must(t, err)
	defer dir.Close()
	for _, impl := range openImpls {
		t.Run(impl.name, func(t *testing.T) {
			impl.use(t)
			for _, rel := range []string{"../x", "a/../../x", "/etc/passwd"} {
				if f, err := openBeneath(dir, rel, openFileFlags); !errors.Is(err, errEscapesRoot) {
					if f != nil {
						f.Close()
					}
					t.Errorf("%q: err = %v, want errEscapesRoot", rel, err)
				}
			}
			f, err := openBeneath(dir, "a/b/f", openFileFlags)
			must(t, err)
			f.Close()
			f, err = openBeneath(dir, ".", openFileFlags)
			must(t, err)
			st, err := stat(f)
			must(t, err)
			f.Close()
			if !st.mode.IsDir() {
				t.Errorf(`"." opened %v, want the root directory`, st.mode)
			}
		})
	}
}

func TestReadToolEdges(t *testing.T) {
	s := NewStore(t.TempDir())
	empty, err := s.SaveResult("src", "text/plain", nil)
	must(t, err)
	binary, err := s.SaveResult("src", "application/octet-stream", []byte("ab\xe4\xb8")) // ends inside a rune
	must(t, err)
	tool := NewReadTool(s)
	if _, err := readCall(t, tool, fmt.Sprintf(`{"id":%q,"offset":1}`, empty)); err == nil || err.Error() != "offset 1 is past the end (size 0)" {
		t.Errorf("offset past an empty artifact: %v", err)
	}
	// The last page is served whole even when the file ends inside a rune.
	out, err := readCall(t, tool, fmt.Sprintf(`{"id":%q}`, binary))
	must(t, err)
	if !strings.Contains(out, "— bytes 0..4 of 4\n") || !strings.Contains(out, "\nab\uFFFD\n") {
		t.Errorf("binary tail: %q", out)
	}
}

func TestReadToolUnknownIDListsAtMostFifty(t *testing.T) {
	for _, n := range []int{50, 51} {
		s := NewStore(t.TempDir())
		for range n {
			_, err := s.SaveResult("src", "text/plain", []byte("x"))
			must(t, err)
		}
		_, err := readCall(t, NewReadTool(s), `{"id":"nope"}`)
		if err == nil {
			t.Fatalf("%d ids: unknown id accepted", n)
		}
		listed := strings.Count(err.Error(), "result-")
		ellipsis := strings.HasSuffix(err.Error(), ", …")
		if listed != 50 || ellipsis != (n > 50) {
			t.Errorf("%d ids: %d listed, ellipsis %v: %v", n, listed, ellipsis, err)
		}
	}
}

// endlessReader is a file an attacker keeps appending to.
type endlessReader struct{ reads int }

func (e *endlessReader) ReadAt(p []byte, off int64) (int, error) {
	e.reads++
	if e.reads > 100 { // keeps a broken scan from hanging the test
		return 0, io.EOF
	}
	return len(p), nil
}

func TestScanStopsWithinAChunkOfGrowth(t *testing.T) {
	r := &endlessReader{}
	_, _, err := scan(context.Background(), r, 10, 0, 0)
	if !errors.Is(err, errSizeChanged) || r.reads != 1 {
		t.Fatalf("err = %v after %d reads, want a size change after 1", err, r.reads)
	}
}

func TestValidateLargestAllowedFile(t *testing.T) {
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "max.bin"))
	must(t, err)
	must(t, f.Truncate(MaxArtifactBytes)) // sparse
	must(t, f.Close())
	v, err := Validate(okRef("file://"+filepath.Join(root, "max.bin")), []string{root})
	if err != nil || v.Size != MaxArtifactBytes {
		t.Fatalf("a file of exactly %d bytes: %v", MaxArtifactBytes, err)
	}
}

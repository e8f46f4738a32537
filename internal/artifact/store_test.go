package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestStoreSaveResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "artifacts", "run-1")
	s := NewStore(dir)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("store dir created before the first save: %v", err)
	}
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := s.SaveResult("mcp:s:t", "text/plain", []byte(fmt.Sprint("data-", i)))
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	if got := strings.Join(s.IDs(), ","); got != "result-1,result-2,result-3,result-4,result-5,result-6,result-7,result-8" {
		t.Fatalf("ids = %s", got)
	}
	info, err := os.Stat(dir)
	must(t, err)
	if info.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", info.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	must(t, err)
	if len(entries) != 8 {
		t.Fatalf("%d files in store dir (temp files left behind?)", len(entries))
	}
	for _, de := range entries {
		fi, err := de.Info()
		must(t, err)
		if fi.Mode().Perm() != 0o600 || strings.HasPrefix(de.Name(), ".tmp") {
			t.Errorf("%s: mode %v", de.Name(), fi.Mode().Perm())
		}
	}
	e, ok := s.Lookup(ids[3])
	if !ok || e.Source != "mcp:s:t" || e.MediaType != "text/plain" || e.Size != int64(len("data-3")) || len(e.SHA256) != 64 {
		t.Fatalf("lookup = %+v %v", e, ok)
	}
	if b, _ := os.ReadFile(e.Path); string(b) != "data-3" {
		t.Fatalf("content %q", b)
	}
}

func TestStoreSaveError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(file, nil, 0o600))
	if _, err := NewStore(filepath.Join(file, "sub")).SaveResult("s", "text/plain", []byte("x")); err == nil {
		t.Fatal("save under a regular file succeeded")
	}
}

func TestStoreRegister(t *testing.T) {
	fx := newFixture(t)
	v, err := Validate(okRef("file://"+fx.okPath), []string{fx.root})
	must(t, err)
	s := NewStore(t.TempDir())
	if err := s.Register(*v, "result-7"); !errors.Is(err, ErrReservedID) {
		t.Fatalf("reserved id: %v", err)
	}
	if err := s.Register(*v, ""); !errors.Is(err, ErrIDRequired) {
		t.Fatalf("empty id: %v", err)
	}
	must(t, s.Register(*v, "r1"))
	e, ok := s.Lookup("r1")
	if !ok || e.Size != fx.okSize || e.SHA256 != fx.okSum || e.MediaType != "text/plain" {
		t.Fatalf("lookup = %+v", e)
	}
	out, err := readCall(t, NewReadTool(s), `{"id":"r1"}`)
	if err != nil || !strings.Contains(out, "hello "+secret) || strings.Contains(out, fx.root) {
		t.Fatalf("read registered ref: %q %v", out, err)
	}
	if err := s.Register(Verified{Ref: v.Ref, Path: v.Path, Size: v.Size, SHA256: v.SHA256}, "r2"); !errors.Is(err, ErrUnverified) {
		t.Fatalf("hand-made Verified: %v", err)
	}
	bad := *v
	bad.Size++
	must(t, s.Register(bad, "r3")) // Register does not touch the disk; every read checks
	if _, err := readCall(t, NewReadTool(s), `{"id":"r3"}`); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "24 when registered") {
		t.Fatalf("size drift: %v", err)
	}
}

func readCall(t *testing.T, tool *ReadTool, args string) (string, error) {
	t.Helper()
	return tool.Call(context.Background(), json.RawMessage(args))
}

func TestReadToolPaging(t *testing.T) {
	s := NewStore(t.TempDir())
	data := strings.Repeat("a", 10) + "世界" + strings.Repeat("b", 5) // 21 bytes
	id, err := s.SaveResult("src", "text/plain", []byte(data))
	must(t, err)
	e, _ := s.Lookup(id)
	short := e.SHA256[:12]
	tool := NewReadTool(s)
	tests := []struct {
		args, header, body string
	}{
		{`{"id":"result-1"}`, "artifact result-1 (text/plain, 21 bytes, sha256:" + short + ") — bytes 0..21 of 21", data},
		{`{"id":"result-1","limit":11}`, "artifact result-1 (text/plain, 21 bytes, sha256:" + short + ") — bytes 0..10 of 21 — TRUNCATED, call again with offset to continue", strings.Repeat("a", 10)},
		{`{"id":"result-1","offset":10,"limit":6}`, "artifact result-1 (text/plain, 21 bytes, sha256:" + short + ") — bytes 10..16 of 21 — TRUNCATED, call again with offset to continue", "世界"},
		{`{"id":"result-1","offset":16}`, "artifact result-1 (text/plain, 21 bytes, sha256:" + short + ") — bytes 16..21 of 21", "bbbbb"},
		{`{"id":"result-1","offset":10,"limit":1}`, "artifact result-1 (text/plain, 21 bytes, sha256:" + short + ") — bytes 10..11 of 21 — TRUNCATED, call again with offset to continue", "\uFFFD"},
		{`{"id":" result-1 ","limit":999999999}`, "artifact result-1 (text/plain, 21 bytes, sha256:" + short + ") — bytes 0..21 of 21", data},
	}
	for _, tt := range tests {
		out, err := readCall(t, tool, tt.args)
		must(t, err)
		header, wrapped, _ := strings.Cut(out, "\n")
		if header != tt.header {
			t.Errorf("%s: header\n got %q\nwant %q", tt.args, header, tt.header)
		}
		if !strings.HasPrefix(wrapped, "<untrusted_content_") || !strings.Contains(wrapped, `source="artifact_read">`+"\n"+tt.body+"\n</untrusted_content_") {
			t.Errorf("%s: body %q", tt.args, wrapped)
		}
	}
}

func TestReadToolEmptyArtifact(t *testing.T) {
	s := NewStore(t.TempDir())
	_, err := s.SaveResult("src", "text/plain", nil)
	must(t, err)
	out, err := readCall(t, NewReadTool(s), `{"id":"result-1"}`)
	must(t, err)
	if !strings.Contains(out, "— bytes 0..0 of 0\n") {
		t.Fatalf("out = %q", out)
	}
}

func TestReadToolErrors(t *testing.T) {
	s := NewStore(t.TempDir())
	for i := 0; i < 3; i++ {
		_, err := s.SaveResult("src", "text/plain", []byte("hello world"))
		must(t, err)
	}
	e2, _ := s.Lookup("result-2")
	must(t, os.Remove(e2.Path))
	e3, _ := s.Lookup("result-3")
	must(t, os.WriteFile(e3.Path, []byte("hello there"), 0o600)) // same size, new inode-or-mtime
	tool := NewReadTool(s)
	tests := []struct{ args, want string }{
		{`{}`, "id is required"},
		{``, "id is required"},
		{`{"id":"  "}`, "id is required"},
		{`{"id":5}`, "invalid arguments: "},
		{`not json`, "invalid arguments: "},
		{`{"id":"result-1","offset":-1}`, "offset -1 must be >= 0"},
		{`{"id":"result-1","limit":-1}`, "limit -1 must be >= 0"},
		{`{"id":"nope"}`, `unknown artifact id "nope" — registered artifacts: result-1, result-2, result-3`},
		{`{"id":"/etc/passwd"}`, `unknown artifact id "/etc/passwd"`},
		{`{"id":"result-1","offset":11}`, "offset 11 is past the end (size 11)"},
		{`{"id":"result-1","offset":99}`, "offset 99 is past the end (size 11)"},
		{`{"id":"result-2"}`, `artifact "result-2" is no longer available (removed by cleanup)`},
		{`{"id":"result-3"}`, `artifact "result-3"`},
	}
	for _, tt := range tests {
		_, err := readCall(t, tool, tt.args)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.args, err, tt.want)
		}
	}
	if _, err := readCall(t, tool, `{"id":"result-2"}`); !errors.Is(err, ErrRemoved) {
		t.Errorf("removed: %v", err)
	}
	if _, err := readCall(t, tool, `{"id":"result-3"}`); !errors.Is(err, ErrChanged) {
		t.Errorf("changed: %v", err)
	}
	if _, err := NewReadTool(NewStore(t.TempDir())).Call(context.Background(), json.RawMessage(`{"id":"x"}`)); err == nil || !strings.HasSuffix(err.Error(), "registered artifacts: (none)") {
		t.Errorf("empty store: %v", err)
	}
}

func TestReadToolRefusesSwappedSymlink(t *testing.T) {
	fx := newFixture(t)
	v, err := Validate(okRef("file://"+fx.okPath), []string{fx.root})
	must(t, err)
	s := NewStore(t.TempDir())
	must(t, s.Register(*v, "r1"))
	must(t, os.Rename(fx.okPath, fx.okPath+".moved"))
	must(t, os.Symlink(filepath.Join(fx.outside, "secret.txt"), fx.okPath))
	out, err := readCall(t, NewReadTool(s), `{"id":"r1"}`)
	if !errors.Is(err, ErrChanged) || strings.Contains(out, secret) {
		t.Fatalf("swapped symlink served: %q %v", out, err)
	}
}

func TestReadToolDetectsContentChange(t *testing.T) {
	fx := newFixture(t)
	v, err := Validate(okRef("file://"+fx.okPath), []string{fx.root})
	must(t, err)
	s := NewStore(t.TempDir())
	must(t, s.Register(*v, "r1"))
	// Same inode, same size, same mtime, different bytes: only the hash can tell.
	info, err := os.Stat(fx.okPath)
	must(t, err)
	f, err := os.OpenFile(fx.okPath, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt([]byte("J"), 0)
	must(t, err)
	must(t, f.Close())
	must(t, os.Chtimes(fx.okPath, info.ModTime(), info.ModTime()))
	if _, err := readCall(t, NewReadTool(s), `{"id":"r1"}`); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("err = %v", err)
	}
}

func TestReadToolMetadata(t *testing.T) {
	tool := NewReadTool(NewStore(t.TempDir()))
	if tool.Name() != "artifact_read" || tool.Description() == "" {
		t.Fatal("name/description")
	}
	var schema map[string]any
	must(t, json.Unmarshal(tool.Schema(), &schema))
	if schema["type"] != "object" {
		t.Fatalf("schema %v", schema)
	}
}

func TestTrimPartialRune(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ab", "ab"},
		{"a\xe4\xb8", "a"},
		{"a\xe4\xb8\x96", "a\xe4\xb8\x96"},
		{"\xe4\xb8", "\xe4\xb8"}, // nothing would be left: serve as is
		{"\x80\x80\x80\x80", "\x80\x80\x80\x80"},
		{"\x80", "\x80"},
		{"\x80\x80", "\x80\x80"},
		{"a\xf0\x9f\x80", "a"}, // three bytes of a four-byte rune, the last one 0x80
		{"a\xf0\x9f\x98\x80", "a\xf0\x9f\x98\x80"},
	}
	for _, tt := range tests {
		if got := string(trimPartialRune([]byte(tt.in))); got != tt.want {
			t.Errorf("trimPartialRune(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

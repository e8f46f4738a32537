package interop_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/mcpclient"
)

// dialFilesystem spawns server-filesystem with one fresh allowed directory
// and returns the client and that directory (symlinks resolved, as the server
// reports it).
func dialFilesystem(ctx context.Context, t *testing.T, cfg mcpclient.ServerConfig) (*mcpclient.Client, string) {
	t.Helper()
	cfg.Command = requirePeer(t, peerFilesystem)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Args = []string{dir}
	return connect(ctx, t, "fs", cfg, mcpclient.Options{}), dir
}

// jsonArgs builds tool arguments; paths must be JSON-escaped, not pasted.
func jsonArgs(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFilesystemRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	c, dir := dialFilesystem(ctx, t, mcpclient.ServerConfig{})
	tools := discover(ctx, t, c)
	for _, name := range []string{"list_allowed_directories", "read_text_file", "write_file"} {
		if _, ok := tools[name]; !ok {
			t.Fatalf("tool %q missing: %v", name, keys(tools))
		}
	}
	if got := call(ctx, t, c, "fs", "list_allowed_directories", `{}`); !strings.Contains(got, dir) {
		t.Errorf("list_allowed_directories = %q, want it to contain %s", got, dir)
	}
	path := filepath.Join(dir, "note.txt")
	content := "line one\nline two — with “quotes” and <tags>\n"
	call(ctx, t, c, "fs", "write_file", jsonArgs(t, map[string]any{"path": path, "content": content}))
	if b, err := os.ReadFile(path); err != nil || string(b) != content {
		t.Fatalf("file on disk = %q, %v; want %q", b, err, content)
	}
	if got := call(ctx, t, c, "fs", "read_text_file", jsonArgs(t, map[string]any{"path": path})); got != content {
		t.Errorf("read_text_file = %q, want %q", got, content)
	}
}

func TestFilesystemOutsideAllowedDir(t *testing.T) {
	t.Parallel()
	ctx := deadline(t, 20*time.Second)
	c, _ := dialFilesystem(ctx, t, mcpclient.ServerConfig{})
	discover(ctx, t, c)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("do not read"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := c.CallTool(ctx, "read_text_file", jsonArgs(t, map[string]any{"path": outside}))
	if err == nil {
		t.Fatal("reading outside the allowed directory succeeded")
	}
	if !strings.Contains(err.Error(), "Access denied") || strings.Contains(err.Error(), "do not read") {
		t.Errorf("error = %v; want the server's Access denied text and no file content", err)
	}
}

// writeBigFile writes n bytes of ASCII text in short lines.
func writeBigFile(t *testing.T, path string, n int) {
	t.Helper()
	line := strings.Repeat("0123456789abcdef", 4)[:63] + "\n"
	data := strings.Repeat(line, n/len(line)+1)[:n]
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestFilesystemLargeFile reads a 1 MiB file. server-filesystem sends the text
// twice (content and structuredContent), so the response is one ~2 MiB line:
// fine under the 10 MiB default, fatal to the connection under 1 MiB.
func TestFilesystemLargeFile(t *testing.T) {
	t.Parallel()
	const size = 1 << 20
	t.Run("DefaultLimit", func(t *testing.T) {
		t.Parallel()
		ctx := deadline(t, 30*time.Second)
		c, dir := dialFilesystem(ctx, t, mcpclient.ServerConfig{})
		discover(ctx, t, c)
		path := filepath.Join(dir, "big.txt")
		writeBigFile(t, path, size)
		got := call(ctx, t, c, "fs", "read_text_file", jsonArgs(t, map[string]any{"path": path}))
		// The text exceeds the default max_result_chars, so it arrives cut with the notice.
		notice := truncationNotice("fs", "read_text_file", size, mcpclient.DefaultMaxResultChars)
		if !strings.HasSuffix(got, notice) {
			t.Errorf("result does not end with the truncation notice %q; tail:\n%q", notice, tail(got, 400))
		}
		if n := utf8.RuneCountInString(got); n != mcpclient.DefaultMaxResultChars {
			t.Errorf("result is %d chars, want exactly max_result_chars=%d", n, mcpclient.DefaultMaxResultChars)
		}
	})
	t.Run("OneMiBLimit", func(t *testing.T) {
		t.Parallel()
		ctx := deadline(t, 30*time.Second)
		c, dir := dialFilesystem(ctx, t, mcpclient.ServerConfig{MaxResponseBytes: 1 << 20})
		discover(ctx, t, c)
		path := filepath.Join(dir, "big.txt")
		writeBigFile(t, path, size)
		_, err := c.CallTool(ctx, "read_text_file", jsonArgs(t, map[string]any{"path": path}))
		if err == nil {
			t.Fatal("a ~2 MiB response line passed max_response_bytes=1 MiB")
		}
		const want = "response line exceeded configured max_response_bytes limit of 1048576 bytes"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v\nwant it to contain %q", err, want)
		}
		var tooLarge *mcpclient.ResponseTooLargeError
		if !errors.As(err, &tooLarge) {
			t.Errorf("error is not a *mcpclient.ResponseTooLargeError: %T", err)
		}
		// The connection is closed: the rest of that line is never read, so
		// nothing after it can be trusted.
		if _, err := c.CallTool(ctx, "list_allowed_directories", `{}`); err == nil {
			t.Error("call after an oversized response line succeeded; the connection should be closed")
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close after oversized line: %v", err)
		}
		if left := processesMentioning(dir); len(left) > 0 {
			t.Errorf("server still running after Close: %v", left)
		}
	})
}

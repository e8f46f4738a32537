package cassette

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

// A transport error is text like any other: it may carry a secret (a proxy
// URL's password, a key in a query string), so it is redacted before it is
// written.
func TestTransportErrorIsRedacted(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	rec, err := Create(dir, RecordOptions{Redact: mask})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: rec.LLMTransport(failingTransport{errors.New("proxyconnect: sekrit-value refused")})}
	if _, err := c.Post("http://x.invalid", "application/json", strings.NewReader(`{"a":1}`)); err == nil {
		t.Fatal("the failing transport succeeded")
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "llm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sekrit-value") || !strings.Contains(string(b), `"error":"proxyconnect: [REDACTED] refused"`) {
		t.Fatalf("llm.jsonl: %s", b)
	}
}

// A cassette may come from a cloned repository: a symlink in it can point
// at any file of the machine, a pipe or a device can block the reader or
// feed it without end. Only regular files are read.
func TestOpenRefusesFilesThatAreNotRegular(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "outside")
	recordLLM(t, outside, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }, `{"a":1}`)
	cases := map[string]func(dir string) error{
		"cassette.json symlink": func(dir string) error {
			return os.Symlink(filepath.Join(outside, MetaFile), filepath.Join(dir, MetaFile))
		},
		"llm.jsonl symlink": func(dir string) error {
			return os.Symlink(filepath.Join(outside, "llm.jsonl"), filepath.Join(dir, "llm.jsonl"))
		},
		"llm.jsonl pipe": func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "llm.jsonl"), 0o600) },
		"tool pipe":      func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "tool-shell.jsonl"), 0o600) },
		"mcp directory":  func(dir string) error { return os.Mkdir(filepath.Join(dir, "mcp-wc.jsonl"), 0o700) },
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cas")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(name, MetaFile) {
				copyFile(t, filepath.Join(outside, MetaFile), filepath.Join(dir, MetaFile))
			}
			if err := plant(dir); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- openAllStreams(dir) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Fatalf("err = %v, want a refusal", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the reader blocked")
			}
		})
	}
}

// openAllStreams opens dir and asks for its llm, shell and wc streams.
func openAllStreams(dir string) error {
	p, err := Open(dir, PlayOptions{})
	if err != nil {
		return err
	}
	if _, err := p.LLMTransport(); err != nil {
		return err
	}
	if _, err := p.toolStream("shell"); err != nil {
		return err
	}
	if _, err := p.MCPPeer("wc"); err != nil && !strings.Contains(err.Error(), "no recording") {
		return err
	}
	return nil
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

package cassette

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

package llm_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

const testKey = "sk-test-SECRET-0123456789"

// startFake serves turns on 127.0.0.1 for the duration of the test.
func startFake(t testing.TB, turns ...fakellm.Turn) *fakellm.Server {
	t.Helper()
	srv, err := fakellm.Start(&fakellm.Script{Turns: turns}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// recorder collects the waits and retry reports of a client instead of
// sleeping.
type recorder struct {
	mu      sync.Mutex
	waits   []time.Duration
	retries []error
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *recorder) onRetry(_ int, _ time.Duration, err error) {
	r.mu.Lock()
	r.retries = append(r.retries, err)
	r.mu.Unlock()
}

func (r *recorder) Waits() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...)
}

func (r *recorder) Retries() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.retries...)
}

// newClient returns a streaming client for srv that records waits instead of
// sleeping and uses a fixed jitter of 0.5.
func newClient(srv *fakellm.Server, rec *recorder, mod ...func(*llm.Options)) *llm.Client {
	o := llm.Options{
		BaseURL:   srv.URL(),
		APIKey:    testKey,
		KeySource: "ODEK_API_KEY",
		Stream:    true,
		Sleep:     rec.sleep,
		OnRetry:   rec.onRetry,
		Rand:      func() float64 { return 0.5 },
	}
	for _, m := range mod {
		m(&o)
	}
	return llm.New(o)
}

func nonStream(o *llm.Options) { o.Stream = false }

func simpleRequest() llm.Request {
	return llm.Request{
		Model:    "test-model",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}},
	}
}

// fixedTransport answers every request with one canned response, without
// any network.
type fixedTransport struct {
	status int
	header http.Header
	body   string
}

func (f *fixedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	h := f.header
	if h == nil {
		h = http.Header{"Content-Type": {"text/event-stream"}}
	}
	return &http.Response{
		StatusCode: f.status,
		Status:     http.StatusText(f.status),
		Header:     h.Clone(),
		Body:       io.NopCloser(strings.NewReader(f.body)),
		Request:    req,
		ProtoMajor: 1, ProtoMinor: 1,
	}, nil
}

// bodyClient is a client whose every call gets body with status 200.
func bodyClient(body string, stream bool, rec *recorder) *llm.Client {
	ctype := "application/json"
	if stream {
		ctype = "text/event-stream"
	}
	return llm.New(llm.Options{
		BaseURL:     "http://fake.invalid/v1",
		APIKey:      testKey,
		Stream:      stream,
		MaxAttempts: 2,
		HTTPClient:  &http.Client{Transport: &fixedTransport{status: 200, header: http.Header{"Content-Type": {ctype}}, body: body}},
		Sleep:       rec.sleep,
		Rand:        func() float64 { return 0.5 },
	})
}

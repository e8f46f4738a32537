package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// MaxResponseBytes bounds every response body (stream or not, success or
// error). A larger body fails the call with a non-retryable error.
const MaxResponseBytes = 50 << 20

// maxResponseBytes is MaxResponseBytes, lowered by tests.
var maxResponseBytes int64 = MaxResponseBytes

// maxErrorBodyKept bounds how much of an error body is kept for messages and
// context-length detection.
const maxErrorBodyKept = 64 << 10

// errBodyTooLarge is returned by a capped body once MaxResponseBytes is passed.
var errBodyTooLarge = fmt.Errorf("response body exceeds the %d MB limit", MaxResponseBytes>>20)

// capture records what go-openai does not expose about one attempt's HTTP
// exchange. One capture exists per attempt and travels in the request context,
// so concurrent Complete calls sharing a Client never see each other's data.
type capture struct {
	teeBody bool   // keep a 2xx body (non-streaming calls parse usage from it)
	body    []byte // the request body to send in place of go-openai's shell

	mu         sync.Mutex
	sent       bool          // the request reached the transport
	status     int           // 0 when no response arrived
	retryAfter string        // raw Retry-After header
	ctype      string        // response Content-Type
	errBody    []byte        // first maxErrorBodyKept bytes of a >= 400 body
	tee        *bytes.Buffer // the 2xx body as read so far, when teeBody
	bodyEOF    bool          // the body ended cleanly (underlying io.EOF)
	bodyErr    error         // the body failed with a non-EOF error
}

func (c *capture) snapshot() (status int, retryAfter string, errBody []byte, bodyEOF bool, bodyErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, c.retryAfter, c.errBody, c.bodyEOF, c.bodyErr
}

func (c *capture) contentType() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctype
}

func (c *capture) wasSent() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent
}

func (c *capture) teed() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tee == nil {
		return nil
	}
	return c.tee.Bytes()
}

type captureKey struct{}

func withCapture(ctx context.Context, c *capture) context.Context {
	return context.WithValue(ctx, captureKey{}, c)
}

// captureTransport wraps the caller's RoundTripper: it records status and
// Retry-After and bounds the body. Requests without a capture in their context
// (for example after a redirect the caller's client re-issues) still get a
// bounded body.
type captureTransport struct {
	base http.RoundTripper
}

func (t *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c, _ := req.Context().Value(captureKey{}).(*capture)
	if c != nil && c.body != nil {
		req = withBody(req, c.body)
	}
	if c != nil {
		c.mu.Lock()
		c.sent = true
		c.mu.Unlock()
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp == nil {
		return resp, err
	}
	cb := &cappedBody{rc: resp.Body, limit: maxResponseBytes, c: c}
	if c != nil {
		c.mu.Lock()
		c.status = resp.StatusCode
		c.retryAfter = resp.Header.Get("Retry-After")
		c.ctype = resp.Header.Get("Content-Type")
		switch {
		case resp.StatusCode >= 400:
			cb.keepErr = true
		case c.teeBody:
			c.tee = &bytes.Buffer{}
			cb.tee = c.tee
		}
		c.mu.Unlock()
	}
	resp.Body = cb
	return resp, nil
}

// withBody returns a copy of req that sends body.
func withBody(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return r
}

// cappedBody bounds a response body and reports how it ended to the capture.
type cappedBody struct {
	rc      io.ReadCloser
	limit   int64
	n       int64
	c       *capture
	keepErr bool
	tee     *bytes.Buffer
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.n > b.limit {
		return 0, errBodyTooLarge
	}
	if room := b.limit + 1 - b.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		n -= int(b.n - b.limit)
		err = errBodyTooLarge
	}
	if b.c != nil && (n > 0 || err != nil) {
		b.c.mu.Lock()
		if b.keepErr && len(b.c.errBody) < maxErrorBodyKept {
			keep := min(n, maxErrorBodyKept-len(b.c.errBody))
			b.c.errBody = append(b.c.errBody, p[:keep]...)
		}
		if b.tee != nil && n > 0 {
			b.tee.Write(p[:n])
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			b.c.bodyEOF = true
		default:
			if b.c.bodyErr == nil {
				b.c.bodyErr = err
			}
		}
		b.c.mu.Unlock()
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

package llm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/odek-run/odek/internal/telemetry"
)

// MaxResponseBytes bounds every response body (stream or not, success or
// error). A larger body fails the call with a non-retryable error.
const MaxResponseBytes = 50 << 20

// maxResponseBytes is MaxResponseBytes, lowered by tests.
var maxResponseBytes int64 = MaxResponseBytes

// errBodyTooLarge is returned by a capped body once MaxResponseBytes is passed.
var errBodyTooLarge = fmt.Errorf("response body exceeds the %d MB limit", MaxResponseBytes>>20)

// exchange records what one attempt's HTTP exchange showed that go-openai
// does not pass on: whether the request left, the Retry-After and
// Content-Type headers, a body read error, and for a non-streaming call the
// body itself (to read the fields go-openai's response type drops). Each
// attempt has its own, bound to its observer (Client.apiFor).
type exchange struct {
	keepBody bool
	dog      *watchdog

	mu          sync.Mutex
	sent        bool
	status      int
	retryAfter  string
	contentType string
	bodyErr     error // a read error other than io.EOF
	body        bytes.Buffer
}

func (ex *exchange) snapshot() (sent bool, status int, retryAfter, contentType string, bodyErr error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.sent, ex.status, ex.retryAfter, ex.contentType, ex.bodyErr
}

// kept is the non-streaming body as received; read it after the call.
func (ex *exchange) kept() []byte {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.body.Bytes()
}

// observer wraps the HTTP transport for one attempt. It only watches: it
// changes no request but to add the attempt's traceparent header where
// tracing allows it (a copy of the request then goes), and passes every
// response on with its body bounded and counted (each read feeds the idle
// timeout).
type observer struct {
	base        http.RoundTripper
	ex          *exchange
	traceparent bool
}

func (o *observer) RoundTrip(req *http.Request) (*http.Response, error) {
	if o.traceparent {
		req = req.Clone(req.Context())
		telemetry.InjectHeaders(req.Context(), req.Header)
	}
	ex := o.ex
	if ex != nil {
		ex.mu.Lock()
		ex.sent = true
		ex.mu.Unlock()
	}
	resp, err := o.base.RoundTrip(req)
	if err != nil || resp == nil {
		return resp, err
	}
	ob := &observedBody{rc: resp.Body, left: maxResponseBytes, ex: ex}
	if ex != nil {
		ex.mu.Lock()
		ex.status = resp.StatusCode
		ex.retryAfter = resp.Header.Get("Retry-After")
		ex.contentType = resp.Header.Get("Content-Type")
		ob.keep = ex.keepBody && resp.StatusCode < 300
		ex.mu.Unlock()
	}
	resp.Body = ob
	return resp, nil
}

// observedBody bounds a response body and reports its reads to the exchange.
type observedBody struct {
	rc   io.ReadCloser
	left int64
	ex   *exchange // nil only for an observer built without one
	keep bool
}

func (b *observedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		n, err = n+int(b.left), errBodyTooLarge
	}
	if b.ex == nil {
		return n, err
	}
	if n > 0 {
		b.ex.dog.touch()
	}
	if (b.keep && n > 0) || (err != nil && !errors.Is(err, io.EOF)) {
		b.ex.mu.Lock()
		if b.keep {
			b.ex.body.Write(p[:n])
		}
		if err != nil && !errors.Is(err, io.EOF) && b.ex.bodyErr == nil {
			b.ex.bodyErr = err
		}
		b.ex.mu.Unlock()
	}
	return n, err
}

func (b *observedBody) Close() error { return b.rc.Close() }

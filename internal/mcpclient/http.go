package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/telemetry"
	"github.com/odek-run/odek/internal/untrusted"
)

// Streamable HTTP timings; vars so tests can shorten them.
var (
	// httpSendTimeout bounds POSTs of notifications and answers, which are synchronous.
	httpSendTimeout = 30 * time.Second
	// httpDeleteTimeout bounds the best-effort session DELETE on Close.
	httpDeleteTimeout = 2 * time.Second
)

// httpTransport speaks MCP Streamable HTTP: every message is a POST; requests
// are answered by a JSON body or an SSE stream that may carry server requests
// and notifications before our response. Requests are POSTed on their own
// goroutines so a slow tool does not hold up the others; notifications and
// answers are POSTed in order by the writer.
type httpTransport struct {
	endpoint string
	client   *http.Client
	token    string
	oauth    *oauthLogin // machine login, when configured
	limit    *readLimit
	traced   bool // requests carry their MCP span's traceparent header
	in       chan inMsg
	quit     chan struct{}
	wg       sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	session   string
	protocol  string
	modern    bool                     // 2026-07-28: no session; the version is per request
	listenEnd chan struct{}            // while the standalone GET stream's loop runs; closed when it ends (listen.go)
	params    map[string][]paramHeader // tool → its x-mcp-header parameters
	cancels   map[int]context.CancelFunc
	seq       int
}

type inMsg struct {
	data []byte
	err  error
}

func newHTTPTransport(name string, cfg ServerConfig, limit *readLimit, o Options) (*httpTransport, []string, error) {
	u, err := url.Parse(cfg.URL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return nil, nil, &configError{Msg: fmt.Sprintf("mcpclient %s: url must be an absolute http or https URL with a host", name)}
	case u.User != nil:
		return nil, nil, &configError{Msg: fmt.Sprintf("mcpclient %s: url must not embed credentials (userinfo); use token_env", name)}
	}
	var warn []string
	t := &httpTransport{endpoint: u.String(), client: o.HTTPClient, limit: limit, traced: o.Telemetry != nil || o.TelemetryFor != nil,
		in: make(chan inMsg, 16), quit: make(chan struct{}), cancels: map[int]context.CancelFunc{}}
	if t.client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = guardedDialer().DialContext
		tr.Proxy = nil // a proxy would dial on our behalf, past the guard
		t.client = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // never re-send a POST (or a token) elsewhere
		}}
	}
	if cfg.OAuth != nil {
		l, err := newOAuthLogin(name, cfg, t.client, o.LookupEnv)
		if err != nil {
			return nil, nil, err
		}
		t.oauth = l
	}
	if cfg.TokenEnv != "" {
		if v, _ := o.LookupEnv(cfg.TokenEnv); v != "" {
			t.token = v
		} else {
			warn = append(warn, fmt.Sprintf("mcp server %q: token_env %q is unset or empty; connecting without a bearer token", name, cfg.TokenEnv))
		}
	}
	return t, warn, nil
}

// forgetSession drops a session the server no longer knows, so that the
// next initialize starts a new one.
func (t *httpTransport) forgetSession() {
	t.mu.Lock()
	t.session = ""
	t.mu.Unlock()
}

func (t *httpTransport) setProtocolVersion(v string) {
	t.mu.Lock()
	t.protocol = v
	t.mu.Unlock()
}

// setParamHeaders records the tools' x-mcp-header parameters.
func (t *httpTransport) setParamHeaders(m map[string][]paramHeader) {
	t.mu.Lock()
	t.params = m
	t.mu.Unlock()
}

func (t *httpTransport) paramHeaders(tool string) []paramHeader {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.params[tool]
}

// setModern switches the transport to the stateless revision v (every POST
// carries MCP-Protocol-Version v and no session), or back to the legacy
// shape with v == "" until initialize names a version.
func (t *httpTransport) setModern(v string) {
	t.mu.Lock()
	t.modern = v != ""
	t.protocol = v
	t.mu.Unlock()
}

// begin registers a POST that ends when parent does, when d passes (d > 0)
// or when the transport closes; false once the transport is closed.
func (t *httpTransport) begin(parent context.Context, d time.Duration) (context.Context, func(), bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, nil, false
	}
	ctx, cancel := context.WithCancel(parent)
	if d > 0 {
		cancel()
		ctx, cancel = context.WithTimeout(parent, d)
	}
	t.seq++
	key := t.seq
	t.cancels[key] = cancel
	t.wg.Add(1)
	return ctx, func() {
		t.mu.Lock()
		delete(t.cancels, key)
		t.mu.Unlock()
		cancel()
		t.wg.Done()
	}, true
}

// send POSTs msg. A request's POST runs on its own goroutine under the
// request's ctx, so a timed-out or cancelled call closes its HTTP request at
// once; notifications and answers are POSTed in order, bounded by
// httpSendTimeout.
func (t *httpTransport) send(ctx context.Context, msg []byte, id int64) error {
	if id > 0 {
		ctx, done, ok := t.begin(ctx, 0)
		if !ok {
			return errClosed
		}
		go func() {
			defer done()
			t.deliverAll(ctx, id, t.post(ctx, msg, id))
		}()
		return nil
	}
	ctx, done, ok := t.begin(context.WithoutCancel(ctx), httpSendTimeout)
	if !ok {
		return errClosed
	}
	defer done()
	return t.post(ctx, msg, 0)
}

// deliverAll turns a request's failure into a per-request error, or a fatal one
// when the body broke the size cap.
func (t *httpTransport) deliverAll(ctx context.Context, id int64, err error) {
	if err == nil {
		return
	}
	var tooLarge *ResponseTooLargeError
	if !errors.As(err, &tooLarge) {
		err = &requestError{id: id, err: err}
	}
	t.deliver(ctx, inMsg{err: err})
}

func (t *httpTransport) deliver(ctx context.Context, m inMsg) bool {
	select {
	case t.in <- m:
		return true
	case <-ctx.Done():
		return false
	}
}

// post sends one message and, for a request, feeds the answer to recv.
func (t *httpTransport) post(ctx context.Context, msg []byte, id int64) error {
	resp, err := t.do(ctx, http.MethodPost, msg)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && resp.Request.Header.Get("Mcp-Session-Id") != "" {
		// 2025-03-26 Streamable HTTP: a 404 to a request with a session
		// means the session is gone; the client starts a new one.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		return errSessionLost
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		t.mu.Lock()
		if t.session == "" && !t.modern {
			t.session = s
		}
		t.mu.Unlock()
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return t.statusError(ctx, resp, id)
	}
	if id == 0 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "text/event-stream" {
		return t.readSSE(ctx, resp.Body, id)
	}
	limit := t.limit.get()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return err
	}
	if int64(len(body)) > limit {
		return &ResponseTooLargeError{Limit: limit, Observed: int64(len(body)), HTTP: true}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("http %d with an empty body for a request", resp.StatusCode)
	}
	t.deliver(ctx, inMsg{data: body})
	return nil
}

// do sends one request to the MCP endpoint (a POST of msg, or the GET of
// the standalone stream). With machine login, a 401 fetches a token and
// the request is sent once more: the server ran nothing it refused.
func (t *httpTransport) do(ctx context.Context, method string, msg []byte) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		var body io.Reader
		if msg != nil {
			body = bytes.NewReader(bytes.TrimSuffix(msg, []byte("\n")))
		}
		req, err := http.NewRequestWithContext(ctx, method, t.endpoint, body)
		if err != nil {
			return nil, err
		}
		if method == http.MethodPost {
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			setRequestHeaders(req.Header, msg, t.paramHeaders)
			if t.traced {
				telemetry.InjectHeaders(ctx, req.Header) // the request's MCP span
			}
		} else {
			req.Header.Set("Accept", "text/event-stream")
		}
		t.authorize(req)
		used := ""
		if t.oauth != nil {
			if used, err = t.oauth.bearer(ctx); err != nil {
				return nil, err
			}
			if used != "" {
				req.Header.Set("Authorization", "Bearer "+used)
			}
		}
		resp, err := t.client.Do(req)
		if err != nil || resp.StatusCode != http.StatusUnauthorized || t.oauth == nil || attempt > 0 {
			return resp, err
		}
		challenge := resp.Header.Get("WWW-Authenticate")
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		if _, err := t.oauth.unauthorized(ctx, challenge, used); err != nil {
			return nil, err
		}
	}
}

// readSSE forwards events until the response to id arrives, then stops reading.
func (t *httpTransport) readSSE(ctx context.Context, body io.Reader, id int64) error {
	sr := newSSEReader(body, t.limit.get())
	for {
		data, err := sr.next()
		if err == io.EOF {
			return errors.New("event stream ended before the response arrived")
		}
		if err != nil {
			return err
		}
		if !t.deliver(ctx, inMsg{data: data}) {
			return ctx.Err()
		}
		if k, m := classify(data); k == kindResponse {
			if n, ok := m.intID(); ok && n == id {
				return nil
			}
		}
	}
}

func (t *httpTransport) authorize(req *http.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	if t.session != "" && !t.modern {
		req.Header.Set("Mcp-Session-Id", t.session)
	}
	if t.protocol != "" {
		req.Header.Set("MCP-Protocol-Version", t.protocol)
	}
}

// maxErrorBody bounds how much of a non-2xx body is read: enough for a
// JSON-RPC error object with a version list.
const maxErrorBody = 64 << 10

// statusError reads a non-2xx answer. Modern servers answer 400 and 404
// with a JSON-RPC error (unsupported version, unknown method, header
// mismatch): one for request id is delivered as its response, so the
// caller sees the MCP error; any other JSON-RPC error body is kept in the
// *hTTPStatusError for era detection.
func (t *httpTransport) statusError(ctx context.Context, resp *http.Response, id int64) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &hTTPStatusError{Code: resp.StatusCode, Body: statusBody(b)}
	if k, m := classify(bytes.TrimSpace(b)); m != nil && m.isError() {
		if n, ok := m.intID(); ok && k == kindResponse && n == id && id > 0 {
			t.deliver(ctx, inMsg{data: b})
			return nil
		}
		w := m.rpcError()
		e.RPCCode = &w.Code
		if w.Code == codeUnsupportedProtocolVersion {
			e.Supported = parseUnsupported(w.Data)
		}
	}
	return e
}

// statusBody returns at most 512 characters of an error body, one line.
func statusBody(b []byte) string {
	if len(b) > 2048 {
		b = b[:2048]
	}
	return clip(strings.TrimSpace(untrusted.OneLine(string(b), 0)), 512)
}

func (t *httpTransport) recv() ([]byte, error) {
	select {
	case m := <-t.in:
		return m.data, m.err
	case <-t.quit:
		return nil, errClosed
	}
}

// close cancels every POST, waits for their goroutines, then ends the session
// with a best-effort DELETE.
func (t *httpTransport) close(g grace) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	for _, cancel := range t.cancels {
		cancel()
	}
	t.mu.Unlock()
	t.wg.Wait()
	t.deleteSession(min(httpDeleteTimeout, g.exit))
	close(t.quit)
	t.client.CloseIdleConnections()
	return nil
}

func (t *httpTransport) deleteSession(timeout time.Duration) {
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	if session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.endpoint, nil)
	if err != nil {
		return
	}
	t.authorize(req)
	if resp, err := t.client.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
	}
}

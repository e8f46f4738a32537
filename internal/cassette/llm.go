package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// LLMTransport wraps base so that every exchange is recorded on the run's
// llm stream. The response body reaches the caller as it arrives; the
// exchange is written when the body ends.
func (r *Recorder) LLMTransport(base http.RoundTripper) http.RoundTripper {
	return &llmTap{r: r, file: llmFile(r.prefix), base: base}
}

type llmTap struct {
	r    *Recorder
	file string
	base http.RoundTripper
}

func (t *llmTap) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := requestBody(req)
	if err != nil {
		return nil, err
	}
	wire := wireOf(req.URL.Path)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.record(wire, body, LLMResponse{Error: t.r.text(err.Error())})
		return nil, err
	}
	head := LLMResponse{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), RetryAfter: resp.Header.Get("Retry-After")}
	resp.Body = &teeBody{rc: resp.Body, done: func(b []byte, complete bool) {
		out := head
		out.Truncated = !complete
		t.r.fillBody(&out, b)
		t.record(wire, body, out)
	}}
	return resp, nil
}

func (t *llmTap) record(wire string, req []byte, resp LLMResponse) {
	reqJSON := t.r.redactJSON(req)
	t.r.write(t.file, func(seq int) any { return LLMEntry{Seq: seq, Wire: wire, Request: reqJSON, Response: resp} })
}

// requestBody reads req's body and puts an unread copy back.
func requestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return []byte("{}"), nil
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, MaxLineBytes+1))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(b) > MaxLineBytes {
		return nil, fmt.Errorf("cassette: request body over the %d MiB line cap", MaxLineBytes>>20)
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

// fillBody stores a response body as JSON, SSE events or text, redacted.
func (r *Recorder) fillBody(out *LLMResponse, b []byte) {
	switch {
	case strings.HasPrefix(out.ContentType, "text/event-stream"):
		out.Events = r.redactEvents(splitEvents(string(b)))
	case json.Valid(b) && len(bytes.TrimSpace(b)) > 0:
		out.Body = r.redactJSON(b)
	default:
		s := r.text(string(b))
		out.Text = &s
	}
}

// teeBody passes a body through and keeps a copy; done runs once, at the
// end of the body or at Close, with whether the body was read to its end.
type teeBody struct {
	rc   io.ReadCloser
	buf  bytes.Buffer
	once sync.Once
	done func(b []byte, complete bool)
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if t.buf.Len() <= MaxLineBytes {
		t.buf.Write(p[:n])
	}
	if errors.Is(err, io.EOF) {
		t.finish(true)
	}
	return n, err
}

func (t *teeBody) Close() error {
	t.finish(false)
	return t.rc.Close()
}

func (t *teeBody) finish(complete bool) {
	t.once.Do(func() { t.done(t.buf.Bytes(), complete) })
}

// llmPlayer serves one llm stream.
type llmPlayer struct {
	p       *Player
	name    string
	entries []LLMEntry
	mu      sync.Mutex
	next    int
}

func (l *llmPlayer) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := requestBody(req)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if d := l.p.departed(); d != nil {
		return departureResponse(req, d), nil
	}
	n := l.next + 1
	if l.next >= len(l.entries) {
		return departureResponse(req, l.p.depart(&DepartureError{Stream: l.name, What: fmt.Sprintf("request %d", n),
			Reason: fmt.Sprintf("the cassette holds %d requests", len(l.entries))})), nil
	}
	e := l.entries[l.next]
	if w := wireOf(req.URL.Path); w != e.Wire {
		return departureResponse(req, l.p.depart(&DepartureError{Stream: l.name, What: fmt.Sprintf("request %d", n),
			Reason: fmt.Sprintf("the cassette was recorded on the %s wire and this run speaks %s (llm.wire_api, --wire-api)", wireName(e.Wire), wireName(w))})), nil
	}
	if d := l.compare(n, e.Request, body); d != nil {
		return departureResponse(req, l.p.depart(d)), nil
	}
	l.next++
	return e.Response.toHTTP(req)
}

func (l *llmPlayer) compare(n int, recorded, live []byte) *DepartureError {
	want, err := l.p.rec.llmRequest(recorded)
	if err != nil {
		return &DepartureError{Stream: l.name, What: fmt.Sprintf("request %d", n), Reason: "the recorded request is not JSON: " + err.Error()}
	}
	got, err := l.p.live.llmRequest(live)
	if err != nil {
		return &DepartureError{Stream: l.name, What: fmt.Sprintf("request %d", n), Reason: "the run's request is not JSON: " + err.Error()}
	}
	if d, ok := firstDiff("", want, got); ok {
		return &DepartureError{Stream: l.name, What: fmt.Sprintf("request %d", n), Path: d.path, At: d.at, Want: d.want, Got: d.got,
			Hint: configHint(d.path, want)}
	}
	return nil
}

func (l *llmPlayer) unplayed() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries) - l.next
}

func (r LLMResponse) toHTTP(req *http.Request) (*http.Response, error) {
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	var body string
	switch {
	case r.Events != nil:
		var b strings.Builder
		for _, ev := range r.Events {
			b.WriteString(ev)
			b.WriteString("\n\n")
		}
		body = b.String()
	case r.Body != nil:
		body = string(r.Body)
	case r.Text != nil:
		body = *r.Text
	}
	h := http.Header{}
	if r.ContentType != "" {
		h.Set("Content-Type", r.ContentType)
	}
	if r.RetryAfter != "" {
		h.Set("Retry-After", r.RetryAfter)
	}
	return &http.Response{StatusCode: r.Status, Status: fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Request: req,
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}, nil
}

// departureResponse answers a departed request with a 400 that no retry
// repeats; the run then ends with the departure (Player.Err).
func departureResponse(req *http.Request, d *DepartureError) *http.Response {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": d.Error(), "type": "odek_replay_departure"}})
	return &http.Response{StatusCode: http.StatusBadRequest, Status: "400 Bad Request", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Request: req,
		Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b))}
}

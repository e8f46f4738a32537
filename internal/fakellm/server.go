package fakellm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxRequestBytes bounds a request body.
const maxRequestBytes = 64 << 20

// Option configures a Server.
type Option func(*Server)

// WithLog logs one line per request to w.
func WithLog(w io.Writer) Option {
	return func(s *Server) { s.logw = w }
}

// Server is the fake endpoint. Its methods are safe for concurrent use.
type Server struct {
	script  *Script
	invalid error
	logw    io.Writer
	now     func() time.Time

	mu   sync.Mutex
	next int    // turns consumed
	used []bool // turns consumed, by index (AnyOrder)
	reqs []RecordedRequest
	grew chan struct{} // closed (and replaced) whenever reqs grows

	inFlight, maxInFlight int // chat-completions requests being answered

	ln        net.Listener
	srv       *http.Server
	url       string
	done      chan struct{}
	closeOnce sync.Once
}

// New returns a server that plays s. Start it with Start, or mount Handler()
// in an httptest.Server.
func New(s *Script, opts ...Option) *Server {
	srv := &Server{script: s, done: make(chan struct{}), now: time.Now, grew: make(chan struct{})}
	if s == nil {
		srv.script = &Script{}
	}
	srv.invalid = srv.script.Validate()
	for _, o := range opts {
		o(srv)
	}
	return srv
}

// Start creates and starts a server in one call.
func Start(s *Script, addr string, opts ...Option) (*Server, error) {
	srv := New(s, opts...)
	if err := srv.Start(addr); err != nil {
		return nil, err
	}
	return srv, nil
}

// Start listens on addr ("" means 127.0.0.1:0) and serves in the background.
func (s *Server) Start(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("fakellm: %w", err)
	}
	s.mu.Lock()
	if s.ln != nil {
		s.mu.Unlock()
		ln.Close()
		return errors.New("fakellm: server already started")
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String() + "/v1"
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	s.mu.Unlock()
	go s.srv.Serve(ln) //nolint:errcheck // ErrServerClosed after Close
	return nil
}

// URL is the base URL, ending in /v1 ("" before Start).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.reqs...)
}

// MaxInFlight is the most chat-completions requests the server was
// answering at the same time, so a test can check a client's concurrency.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// pickLocked chooses the turn for rec, or says why there is none; n is the
// 1-based turn number (0 when none). s.mu must be held.
func (s *Server) pickLocked(rec *RecordedRequest) (turn Turn, n int, failure string) {
	total := len(s.script.Turns)
	last := ""
	if k := len(rec.Messages); k > 0 {
		last = rec.Messages[k-1].Content
	}
	switch {
	case s.invalid != nil:
		return Turn{}, 0, "fakellm: invalid script: " + s.invalid.Error()
	case s.next >= total:
		return Turn{}, 0, fmt.Sprintf("fakellm: script exhausted after %d turns", total)
	case s.script.AnyOrder:
		if s.used == nil {
			s.used = make([]bool, total)
		}
		for i, t := range s.script.Turns {
			if !s.used[i] && t.fits(rec.Model, last) {
				s.used[i] = true
				s.next++
				return t, i + 1, ""
			}
		}
		return Turn{}, 0, fmt.Sprintf("fakellm: no unused turn matches the last message %q (model %q)", clip(last, 200), clip(rec.Model, 200))
	}
	turn, n = s.script.Turns[s.next], s.next+1
	if turn.Match != "" && !strings.Contains(last, turn.Match) {
		return Turn{}, 0, fmt.Sprintf("fakellm: turn %d expected %q in last message, got %q", n, turn.Match, clip(last, 200))
	}
	if turn.MatchModel != "" && rec.Model != turn.MatchModel {
		return Turn{}, 0, fmt.Sprintf("fakellm: turn %d expected model %q, got %q", n, turn.MatchModel, clip(rec.Model, 200))
	}
	s.next++
	return turn, n, ""
}

// fits reports whether t may answer a request for model whose last
// message is last.
func (t Turn) fits(model, last string) bool {
	return (t.Match == "" || strings.Contains(last, t.Match)) && (t.MatchModel == "" || t.MatchModel == model)
}

// TurnsUsed is the number of turns consumed so far.
func (s *Server) TurnsUsed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// Close stops the server: hanging requests are released and connections are
// closed. It is safe to call more than once.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.done)
		s.mu.Lock()
		srv := s.srv
		s.mu.Unlock()
		if srv != nil {
			err = srv.Close()
		}
	})
	return err
}

// Handler serves the fake API: POST .../chat/completions and .../responses.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

func (s *Server) logf(format string, args ...any) {
	if s.logw != nil {
		fmt.Fprintf(s.logw, "fakellm: "+format+"\n", args...)
	}
}

// wireRequest is the part of a chat-completions request the server reads.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err != nil {
		plain(w, http.StatusBadRequest, "fakellm: reading request body: "+err.Error())
		return
	}
	rec := record(r, body)

	served := strings.HasSuffix(r.URL.Path, "/chat/completions") ||
		(strings.HasSuffix(r.URL.Path, "/responses") && !s.script.ChatOnly)
	if !served {
		s.keep(rec)
		s.logf("%s %s -> 404", r.Method, r.URL.Path)
		plain(w, http.StatusNotFound, "fakellm: no such endpoint "+r.URL.Path+" (only POST <base>/chat/completions and <base>/responses)")
		return
	}
	if r.Method != http.MethodPost {
		s.keep(rec)
		s.logf("%s %s -> 405", r.Method, r.URL.Path)
		plain(w, http.StatusMethodNotAllowed, "fakellm: "+r.Method+" not allowed (POST only)")
		return
	}
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if rec.DecodeError != "" {
		s.keep(rec)
		s.logf("%s %s -> 400 bad JSON", r.Method, r.URL.Path)
		apiError(w, http.StatusBadRequest, "fakellm: request body is not JSON: "+rec.DecodeError, "invalid_request_error", "")
		return
	}

	if rf, text := refusalFor(body, s.script.Refuse); rf != nil {
		s.keep(rec)
		s.logf("%s %s -> refused %s", r.Method, r.URL.Path, rf.Param)
		writeRefusal(w, rf, text)
		return
	}
	if msg, param := sequenceError(rec.Messages); msg != "" {
		s.keep(rec)
		s.logf("%s %s -> 400 invalid message sequence at %s", r.Method, r.URL.Path, param)
		invalidParam(w, msg, param)
		return
	}
	if p := rejectedParam(body, s.script.RejectParams); p != "" {
		s.keep(rec)
		s.logf("%s %s -> 400 unsupported parameter %s", r.Method, r.URL.Path, p)
		paramError(w, p)
		return
	}

	// Pick the turn.
	s.mu.Lock()
	turn, n, failure := s.pickLocked(&rec)
	rec.Turn = n
	s.appendLocked(rec)
	s.mu.Unlock()

	if failure != "" {
		s.logf("%s %s -> 500 %s", r.Method, r.URL.Path, failure)
		plain(w, http.StatusInternalServerError, failure)
		return
	}
	if !s.awaitRequests(r.Context(), turn.AfterRequests, time.Duration(turn.AfterRequestsMaxMs)*time.Millisecond) {
		return
	}
	action := "answer"
	if turn.Fault != "" {
		action = "fault " + turn.Fault
	} else if len(turn.ToolCalls) > 0 {
		names := make([]string, len(turn.ToolCalls))
		for i, c := range turn.ToolCalls {
			names[i] = c.Name
		}
		action = "tool_calls " + strings.Join(names, ",")
	}
	s.logf("%s %s turn %d/%d stream=%t messages=%d tools=%d -> %s",
		r.Method, r.URL.Path, n, len(s.script.Turns), rec.Stream, len(rec.Messages), len(rec.Tools), action)

	s.respond(w, r, &rec, &turn, n)
}

func (s *Server) keep(rec RecordedRequest) {
	s.mu.Lock()
	s.appendLocked(rec)
	s.mu.Unlock()
}

// appendLocked records a request and wakes whoever waits for a count.
func (s *Server) appendLocked(rec RecordedRequest) {
	s.reqs = append(s.reqs, rec)
	close(s.grew)
	s.grew = make(chan struct{})
}

// awaitRequests holds a turn's answer until the server has received n
// requests (the one being answered included): a test orders parallel
// clients by what they sent, not by time. A max above 0 bounds the hold:
// then the answer goes anyway. False when the client went away or the
// server closed first.
func (s *Server) awaitRequests(ctx context.Context, n int, max time.Duration) bool {
	var expired <-chan time.Time
	if max > 0 && n > 0 {
		t := time.NewTimer(max)
		defer t.Stop()
		expired = t.C
	}
	for {
		s.mu.Lock()
		have, grew := len(s.reqs), s.grew
		s.mu.Unlock()
		if have >= n {
			return true
		}
		select {
		case <-grew:
		case <-expired:
			return true
		case <-ctx.Done():
			return false
		case <-s.done:
			return false
		}
	}
}

// wait sleeps d unless the client goes away or the server closes.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request, rec *RecordedRequest, t *Turn, n int) {
	ctx := r.Context()
	switch t.Fault {
	case FaultRateLimit:
		if t.FaultArg != "" {
			w.Header().Set("Retry-After", t.FaultArg)
		}
		apiError(w, http.StatusTooManyRequests, "Rate limit reached for requests (fakellm). Please try again later.", "requests", "rate_limit_exceeded")
		return
	case FaultServerError:
		apiError(w, http.StatusInternalServerError, "The server had an error while processing your request (fakellm).", "server_error", "")
		return
	case FaultBadGateway:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n")
		return
	case FaultStatus:
		code, _ := strconv.Atoi(t.FaultArg)
		msg := fmt.Sprintf("fakellm: scripted HTTP %d (%s)", code, http.StatusText(code))
		if code == http.StatusNotFound { // as OpenAI words an unknown model
			msg += fmt.Sprintf(": the model `%s` does not exist or you do not have access to it", rec.Model)
		}
		apiError(w, code, msg, "fakellm_error", "")
		return
	case FaultContextLength:
		apiError(w, http.StatusBadRequest,
			"This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.",
			"invalid_request_error", "context_length_exceeded")
		return
	case FaultUnauthorized:
		apiError(w, http.StatusUnauthorized,
			"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
			"invalid_request_error", "invalid_api_key")
		return
	case FaultHang:
		s.hold(ctx)
		return
	case FaultKeepAliveOnly:
		if rec.Stream {
			s.keepAlive(ctx, w, t)
			return
		}
		s.hold(ctx)
		return
	case FaultMalformedSSE:
		s.malformed(w, rec, t)
		return
	}

	delay := time.Duration(t.DelayMs) * time.Millisecond
	if t.Fault == FaultSlowFirstToken && delay == 0 {
		delay = 500 * time.Millisecond
		if t.FaultArg != "" {
			ms, _ := strconv.Atoi(t.FaultArg)
			delay = time.Duration(ms) * time.Millisecond
		}
	}
	model := s.script.Model
	if model == "" {
		model = rec.Model
	}
	if model == "" {
		model = "fakellm"
	}
	usage := usageFor(rec, t)

	if !rec.Stream {
		b := completionBody(t, n, model, usage, s.now())
		if rec.Wire == "responses" {
			b = responseBody(t, n, model, usage, s.now())
		}
		if !s.wait(ctx, delay) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if t.Fault == FaultDropMidStream {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.WriteHeader(http.StatusOK)
			w.Write(b[:len(b)/2])
			drop(w)
			return
		}
		w.WriteHeader(http.StatusOK)
		w.Write(b)
		return
	}

	events, done := sseEvents(rec, t, n, model, usage, s.now())
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush(w)
	if !s.wait(ctx, delay) {
		return
	}
	limit := len(events)
	if t.Fault == FaultDropMidStream || t.Fault == FaultStallMidStream {
		limit = max(1, (len(events)-1)/2)
		if t.FaultArg != "" {
			limit, _ = strconv.Atoi(t.FaultArg)
		}
		limit = min(limit, len(events))
	}
	gap := time.Duration(t.ChunkDelayMs) * time.Millisecond
	for i := 0; i < limit; i++ {
		if i > 0 && !s.wait(ctx, gap) {
			return
		}
		if _, err := io.WriteString(w, events[i]); err != nil {
			return
		}
		flush(w)
	}
	switch t.Fault {
	case FaultDropMidStream:
		drop(w)
		return
	case FaultStallMidStream:
		s.hold(ctx)
		return
	}
	io.WriteString(w, done)
	flush(w)
}

// sseEvents are the turn's SSE events, each whole with its blank line, and
// what ends the stream: chat's data: [DONE]; nothing on the Responses wire,
// whose stream ends after response.completed.
func sseEvents(rec *RecordedRequest, t *Turn, n int, model string, u *usageJSON, now time.Time) ([]string, string) {
	var out []string
	if rec.Wire == "responses" {
		for _, e := range responseEvents(t, n, model, u, now) {
			out = append(out, "event: "+e.typ+"\ndata: "+string(e.data)+"\n\n")
		}
		return out, ""
	}
	for _, e := range streamEvents(t, n, model, u, rec.IncludeUsage, now) {
		out = append(out, "data: "+string(e)+"\n\n")
	}
	return out, "data: [DONE]\n\n"
}

// hold keeps a request open until the client gives up or the server closes.
func (s *Server) hold(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.done:
	}
}

// keepAlive answers 200 with an event stream that carries only SSE comments,
// one every fault_arg ms (default 20), until the client gives up or the
// server closes: a stream that is busy but never says anything.
func (s *Server) keepAlive(ctx context.Context, w http.ResponseWriter, t *Turn) {
	every := 20 * time.Millisecond
	if ms, err := strconv.Atoi(t.FaultArg); err == nil && ms > 0 {
		every = time.Duration(ms) * time.Millisecond
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flush(w)
	for s.wait(ctx, every) {
		if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
			return
		}
		flush(w)
	}
}

// malformed answers 200 with a body that breaks the protocol.
func (s *Server) malformed(w http.ResponseWriter, rec *RecordedRequest, t *Turn) {
	body := t.FaultArg
	ctype := "application/json"
	if rec.Stream && rec.Wire == "responses" && body == "" {
		ctype = "text/event-stream"
		body = "event: response.created\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_fake","object":"response","status":"in_progress","output":[]}}` + "\n\n" +
			"event: response.output_text.delta\n" + `data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_fake","output_index":0,"delta":"hel` + "\n\n"
	} else if rec.Stream {
		ctype = "text/event-stream"
		if body == "" {
			body = `data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hel` + "\n\n" +
				"data: [DONE]\n\n"
		}
	} else if body == "" && rec.Wire == "responses" {
		body = `{"id":"resp_fake","object":"response","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hel`
	} else if body == "" {
		body = `{"id":"chatcmpl-fake","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hel`
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, body)
}

// drop closes the connection under a response in progress, so the client sees
// the body end without its terminator.

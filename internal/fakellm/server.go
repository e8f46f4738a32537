package fakellm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxRequestBytes bounds a request body.
const maxRequestBytes = 64 << 20

// RecordedRequest is one request as the server received it.
type RecordedRequest struct {
	Turn   int // 1-based turn the request consumed; 0 when it consumed none
	Method string
	Path   string
	Header http.Header
	Body   []byte // raw request body

	// Parsed from Body when it is a chat-completions JSON request.
	Model               string
	Messages            []RecordedMessage
	Tools               []RecordedTool
	Stream              bool
	IncludeUsage        bool // stream_options.include_usage
	MaxTokens           int
	MaxCompletionTokens int
	DecodeError         string // why Body did not parse, if it did not
}

// RecordedMessage is one message of a recorded request. Content is the text,
// whether it was sent as a string or as text parts; ContentPresent is false
// when the field was absent or null.
type RecordedMessage struct {
	Role             string
	Content          string
	ContentPresent   bool
	Name             string
	ToolCallID       string
	ReasoningContent string
	ToolCalls        []RecordedToolCall
}

// RecordedToolCall is a tool call inside a recorded assistant message.
type RecordedToolCall struct {
	ID, Type, Name, Arguments string
}

// RecordedTool is one offered tool.
type RecordedTool struct {
	Type        string
	Name        string
	Description string
	Parameters  json.RawMessage
}

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
	next int
	reqs []RecordedRequest

	ln        net.Listener
	srv       *http.Server
	url       string
	done      chan struct{}
	closeOnce sync.Once
}

// New returns a server that plays s. Start it with Start, or mount Handler()
// in an httptest.Server.
func New(s *Script, opts ...Option) *Server {
	srv := &Server{script: s, done: make(chan struct{}), now: time.Now}
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

// Handler serves the fake API: POST .../chat/completions.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

func (s *Server) logf(format string, args ...any) {
	if s.logw != nil {
		fmt.Fprintf(s.logw, "fakellm: "+format+"\n", args...)
	}
}

// wireRequest is the part of a chat-completions request the server reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		Name             string          `json:"name"`
		ToolCallID       string          `json:"tool_call_id"`
		ReasoningContent string          `json:"reasoning_content"`
		ToolCalls        []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int `json:"max_tokens"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
}

// contentText flattens a message content: a string, or text parts.
func contentText(raw json.RawMessage) (string, bool) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String(), true
	}
	return t, true
}

func record(r *http.Request, body []byte) RecordedRequest {
	rec := RecordedRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		rec.DecodeError = err.Error()
		return rec
	}
	rec.Model, rec.Stream = w.Model, w.Stream
	rec.MaxTokens, rec.MaxCompletionTokens = w.MaxTokens, w.MaxCompletionTokens
	rec.IncludeUsage = w.StreamOptions != nil && w.StreamOptions.IncludeUsage
	for _, m := range w.Messages {
		rm := RecordedMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, ReasoningContent: m.ReasoningContent}
		rm.Content, rm.ContentPresent = contentText(m.Content)
		for _, tc := range m.ToolCalls {
			rm.ToolCalls = append(rm.ToolCalls, RecordedToolCall{ID: tc.ID, Type: tc.Type, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		rec.Messages = append(rec.Messages, rm)
	}
	for _, t := range w.Tools {
		rec.Tools = append(rec.Tools, RecordedTool{Type: t.Type, Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return rec
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err != nil {
		plain(w, http.StatusBadRequest, "fakellm: reading request body: "+err.Error())
		return
	}
	rec := record(r, body)

	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		s.keep(rec)
		s.logf("%s %s -> 404", r.Method, r.URL.Path)
		plain(w, http.StatusNotFound, "fakellm: no such endpoint "+r.URL.Path+" (only POST <base>/chat/completions)")
		return
	}
	if r.Method != http.MethodPost {
		s.keep(rec)
		s.logf("%s %s -> 405", r.Method, r.URL.Path)
		plain(w, http.StatusMethodNotAllowed, "fakellm: "+r.Method+" not allowed (POST only)")
		return
	}
	if rec.DecodeError != "" {
		s.keep(rec)
		s.logf("%s %s -> 400 bad JSON", r.Method, r.URL.Path)
		apiError(w, http.StatusBadRequest, "fakellm: request body is not JSON: "+rec.DecodeError, "invalid_request_error", "")
		return
	}

	// Pick the turn.
	s.mu.Lock()
	total := len(s.script.Turns)
	var (
		turn    Turn
		n       int
		failure string
	)
	switch {
	case s.invalid != nil:
		failure = "fakellm: invalid script: " + s.invalid.Error()
	case s.next >= total:
		failure = fmt.Sprintf("fakellm: script exhausted after %d turns", total)
	default:
		turn, n = s.script.Turns[s.next], s.next+1
		if turn.Match != "" {
			last := ""
			if k := len(rec.Messages); k > 0 {
				last = rec.Messages[k-1].Content
			}
			if !strings.Contains(last, turn.Match) {
				failure = fmt.Sprintf("fakellm: turn %d expected %q in last message, got %q", n, turn.Match, clip(last, 200))
				n = 0
			}
		}
		if failure == "" {
			s.next++
		}
	}
	rec.Turn = n
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()

	if failure != "" {
		s.logf("%s %s -> 500 %s", r.Method, r.URL.Path, failure)
		plain(w, http.StatusInternalServerError, failure)
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
		r.Method, r.URL.Path, n, total, rec.Stream, len(rec.Messages), len(rec.Tools), action)

	s.respond(w, r, &rec, &turn, n)
}

func (s *Server) keep(rec RecordedRequest) {
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
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
		apiError(w, code, fmt.Sprintf("fakellm: scripted HTTP %d (%s)", code, http.StatusText(code)), "fakellm_error", "")
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
		select {
		case <-ctx.Done():
		case <-s.done:
		}
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

	events := streamEvents(t, n, model, usage, rec.IncludeUsage, s.now())
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush(w)
	if !s.wait(ctx, delay) {
		return
	}
	limit := len(events)
	if t.Fault == FaultDropMidStream {
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
		if _, err := fmt.Fprintf(w, "data: %s\n\n", events[i]); err != nil {
			return
		}
		flush(w)
	}
	if t.Fault == FaultDropMidStream {
		drop(w)
		return
	}
	io.WriteString(w, "data: [DONE]\n\n")
	flush(w)
}

// malformed answers 200 with a body that breaks the protocol.
func (s *Server) malformed(w http.ResponseWriter, rec *RecordedRequest, t *Turn) {
	body := t.FaultArg
	ctype := "application/json"
	if rec.Stream {
		ctype = "text/event-stream"
		if body == "" {
			body = `data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hel` + "\n\n" +
				"data: [DONE]\n\n"
		}
	} else if body == "" {
		body = `{"id":"chatcmpl-fake","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hel`
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, body)
}

// drop closes the connection under a response in progress, so the client sees
// the body end without its terminator.
func drop(w http.ResponseWriter) {
	flush(w)
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			// A plain close (FIN) rather than a reset: the client reliably
			// reads the chunks already sent, then an unexpected EOF.
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // the server closes the connection
}

func flush(w http.ResponseWriter) {
	http.NewResponseController(w).Flush() //nolint:errcheck // best effort
}

func plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	io.WriteString(w, msg+"\n")
}

// apiError writes an OpenAI-style error body.
func apiError(w http.ResponseWriter, code int, msg, typ, errCode string) {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if errCode != "" {
		e["code"] = errCode
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// --- response bodies ---

type usageJSON struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details,omitempty"`
}

// usageFor is the usage to report, nil when the turn opts out.
func usageFor(rec *RecordedRequest, t *Turn) *usageJSON {
	if t.NoUsage {
		return nil
	}
	var u usageJSON
	if t.Usage != nil {
		u.PromptTokens, u.CompletionTokens = t.Usage.PromptTokens, t.Usage.CompletionTokens
		if t.Usage.CachedTokens > 0 {
			u.PromptTokensDetails = &struct {
				CachedTokens int `json:"cached_tokens"`
			}{t.Usage.CachedTokens}
		}
	} else {
		out := len(t.Content) + len(t.ReasoningContent)
		for _, c := range t.ToolCalls {
			out += len(c.Name) + len(c.ArgumentsText())
		}
		u.PromptTokens = max(1, len(rec.Body)/4)
		u.CompletionTokens = max(1, out/4)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return &u
}

func finishReason(t *Turn) string {
	switch {
	case t.FinishReason != "":
		return t.FinishReason
	case len(t.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func callID(c ScriptCall, turn, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", turn, i+1)
}

type toolCallJSON struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func completionBody(t *Turn, n int, model string, u *usageJSON, now time.Time) []byte {
	msg := map[string]any{"role": "assistant", "content": nil}
	if t.Content != "" || len(t.ToolCalls) == 0 {
		msg["content"] = t.Content
	}
	if t.ReasoningContent != "" {
		msg["reasoning_content"] = t.ReasoningContent
	}
	if len(t.ToolCalls) > 0 {
		calls := make([]toolCallJSON, len(t.ToolCalls))
		for i, c := range t.ToolCalls {
			calls[i].ID, calls[i].Type = callID(c, n, i), "function"
			calls[i].Function.Name, calls[i].Function.Arguments = c.Name, c.ArgumentsText()
		}
		msg["tool_calls"] = calls
	}
	body := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake-%d", n),
		"object":  "chat.completion",
		"created": now.Unix(),
		"model":   model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(t), "logprobs": nil}},
	}
	if u != nil {
		body["usage"] = u
	}
	b, _ := json.Marshal(body)
	return b
}

type chunkJSON struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []choiceJSON `json:"choices"`
	Usage   *usageJSON   `json:"usage,omitempty"`
}

type choiceJSON struct {
	Index        int       `json:"index"`
	Delta        deltaJSON `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type deltaJSON struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCallJSON `json:"tool_calls,omitempty"`
}

// streamEvents renders a turn as SSE data payloads (without "data: " and
// without [DONE]): a role chunk, reasoning and content chunks, tool-call
// chunks (id and name first, then the arguments in pieces), the finish chunk,
// and a usage chunk with empty choices when asked for and available.
func streamEvents(t *Turn, n int, model string, u *usageJSON, includeUsage bool, now time.Time) [][]byte {
	size := t.ChunkSize
	if size <= 0 {
		size = DefaultChunkSize
	}
	id := fmt.Sprintf("chatcmpl-fake-%d", n)
	var out [][]byte
	emit := func(d deltaJSON, finish *string) {
		c := chunkJSON{ID: id, Object: "chat.completion.chunk", Created: now.Unix(), Model: model,
			Choices: []choiceJSON{{Index: 0, Delta: d, FinishReason: finish}}}
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	empty := ""
	emit(deltaJSON{Role: "assistant", Content: &empty}, nil)
	for _, p := range split(t.ReasoningContent, size) {
		emit(deltaJSON{ReasoningContent: p}, nil)
	}
	for _, p := range split(t.Content, size) {
		emit(deltaJSON{Content: &p}, nil)
	}

	// Tool calls: per call, a header delta then argument pieces.
	type pending struct {
		idx    int
		pieces []string
	}
	var queue []pending
	for i, c := range t.ToolCalls {
		queue = append(queue, pending{idx: i, pieces: split(c.ArgumentsText(), size)})
	}
	argDelta := func(i int, header bool, piece string) {
		idx := i
		tc := toolCallJSON{Index: &idx}
		if header {
			c := t.ToolCalls[i]
			tc.ID, tc.Type = callID(c, n, i), "function"
			tc.Function.Name = c.Name
		}
		tc.Function.Arguments = piece
		emit(deltaJSON{ToolCalls: []toolCallJSON{tc}}, nil)
	}
	if t.Interleave {
		for _, p := range queue {
			argDelta(p.idx, true, "")
		}
		for more := true; more; {
			more = false
			for k := range queue {
				if len(queue[k].pieces) > 0 {
					argDelta(queue[k].idx, false, queue[k].pieces[0])
					queue[k].pieces = queue[k].pieces[1:]
					more = true
				}
			}
		}
	} else {
		for _, p := range queue {
			argDelta(p.idx, true, "")
			for _, piece := range p.pieces {
				argDelta(p.idx, false, piece)
			}
		}
	}

	fr := finishReason(t)
	emit(deltaJSON{}, &fr)
	if includeUsage && u != nil {
		c := chunkJSON{ID: id, Object: "chat.completion.chunk", Created: now.Unix(), Model: model,
			Choices: []choiceJSON{}, Usage: u}
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	return out
}

// split cuts s into pieces of at most size bytes without splitting a UTF-8
// sequence (a piece holds at least one rune).
func split(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		if len(s) <= size {
			out = append(out, s)
			break
		}
		cut := size
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			_, cut = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHTTPServer is a minimal Streamable HTTP MCP server: JSON for initialize,
// SSE (with a notification and a ping request first) for tools/call.
type fakeHTTPServer struct {
	hangEnded chan struct{} // closed when a "hang" call's request context ends

	mu      sync.Mutex
	seen    []string // "<METHOD> <rpc method> session=<s> proto=<p> auth=<a>"
	pingAns string
}

func (s *fakeHTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	s.mu.Lock()
	s.seen = append(s.seen, fmt.Sprintf("%s %s session=%s proto=%s auth=%s", r.Method, m.Method,
		r.Header.Get("Mcp-Session-Id"), r.Header.Get("MCP-Protocol-Version"), r.Header.Get("Authorization")))
	if m.Method == "" && string(m.ID) == `"srv-1"` {
		s.pingAns = string(m.Result)
	}
	s.mu.Unlock()
	if r.Method == http.MethodDelete || m.Method == "" || strings.HasPrefix(m.Method, "notifications/") {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.Method == "server/discover" { // a legacy sessionful server, as the TypeScript SDK's
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
		return
	}
	switch {
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "sess-42")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}`, m.ID)
	case m.Method == "tools/list":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo"},{"name":"big"},{"name":"fail"},{"name":"stray"}]}}`, m.ID)
	case m.Params.Name == "echo":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		fmt.Fprint(w, ": keepalive\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\ndata: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"sse hello\"}]}}\n\n", m.ID)
	case m.Params.Name == "stray":
		// A log line and answers to ids that are not this request's come
		// before the response; none of them ends the stream.
		var id int64
		_ = json.Unmarshal(m.ID, &id)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: server log line, not JSON\n\n")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"stale\"}]}}\n\n", id+1000)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"%d\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"string id\"}]}}\n\n", id)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"right id\"}]}}\n\n", id)
	case m.Params.Name == "hang":
		<-r.Context().Done()
		close(s.hangEnded)
	case m.Params.Name == "big":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`, m.ID, strings.Repeat("b", 5000))
	default:
		http.Error(w, strings.Repeat("server exploded ", 100), http.StatusInternalServerError)
	}
}

func TestHTTPTransport(t *testing.T) {
	fake := &fakeHTTPServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	lookup := func(k string) (string, bool) { return map[string]string{"MCP_TOKEN": "tok-123"}[k], k == "MCP_TOKEN" }
	c, err := Connect(context.Background(), "web", ServerConfig{URL: srv.URL + "/mcp", TokenEnv: "MCP_TOKEN", MaxResponseBytes: 4096},
		Options{LookupEnv: lookup, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.Discover(context.Background())
	if err != nil || len(tools) != 4 {
		t.Fatalf("discover: %v %v", tools, err)
	}
	out, err := c.CallTool(context.Background(), "echo", `{}`)
	if err != nil || !strings.Contains(out, "\nsse hello\n") {
		t.Fatalf("echo: %q %v", out, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out, err := c.CallTool(ctx, "stray", `{}`); err != nil || !strings.Contains(out, "\nright id\n") {
		t.Fatalf("stray: %q %v", out, err)
	}
	_, err = c.CallTool(context.Background(), "fail", `{}`)
	var he *hTTPStatusError
	if !errors.As(err, &he) || he.Code != 500 || len(he.Body) > 512+len("…") ||
		!strings.HasPrefix(err.Error(), "mcpclient web: tool fail: http 500: server exploded") {
		t.Fatalf("fail: %v", err)
	}
	_, err = c.CallTool(context.Background(), "big", `{}`)
	if err == nil || !strings.HasPrefix(err.Error(), "mcpclient web: tool big: response exceeds max_response_bytes=4096") {
		t.Fatalf("big: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	seen := strings.Join(fake.seen, "\n")
	for _, want := range []string{
		"POST server/discover session= proto=2026-07-28 auth=Bearer tok-123",
		"POST initialize session= proto= auth=Bearer tok-123",
		"POST notifications/initialized session=sess-42 proto=2025-03-26 auth=Bearer tok-123",
		"POST tools/call session=sess-42 proto=2025-03-26",
		"DELETE  session=sess-42",
	} {
		if !strings.Contains(seen, want) {
			t.Errorf("server did not see %q in:\n%s", want, seen)
		}
	}
	if fake.pingAns != "{}" {
		t.Errorf("ping in SSE stream answered %q", fake.pingAns)
	}
}

// Close of a server that has gone away (its session DELETE cannot connect)
// still shuts the client down cleanly.
func TestHTTPCloseAfterServerGone(t *testing.T) {
	srv := httptest.NewServer(&fakeHTTPServer{})
	c, err := Connect(context.Background(), "web", ServerConfig{URL: srv.URL}, Options{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := c.CallTool(context.Background(), "echo", `{}`); !errors.Is(err, errClosed) {
		t.Errorf("call after Close: %v", err)
	}
}

// A call that times out closes its HTTP request at once: the server sees the
// request end while the client is still open, not only at Close.
func TestHTTPTimeoutCancelsRequest(t *testing.T) {
	fake := &fakeHTTPServer{hangEnded: make(chan struct{})}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c, err := Connect(context.Background(), "web", ServerConfig{URL: srv.URL}, Options{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.CallTool(ctx, "hang", `{}`); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
	select {
	case <-fake.hangEnded:
	case <-time.After(10 * time.Second):
		t.Fatal("the timed-out call's HTTP request is still open")
	}
}

// boundServer answers tools/call by tool name: "status_<code>" with that
// HTTP status and a valid result, "bytes_<n>" with a JSON body of exactly n
// bytes.
func boundServer(w http.ResponseWriter, r *http.Request) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct{ Name string }
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	if m.Method == "" || strings.HasPrefix(m.Method, "notifications/") {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.Method == "server/discover" { // a legacy sessionful server, as the TypeScript SDK's
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case m.Method == "initialize":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}`, m.ID)
	case m.Method == "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
	case strings.HasPrefix(m.Params.Name, "status_"):
		var code int
		fmt.Sscan(strings.TrimPrefix(m.Params.Name, "status_"), &code)
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}]}}`, m.ID)
	case strings.HasPrefix(m.Params.Name, "bytes_"):
		var n int
		fmt.Sscan(strings.TrimPrefix(m.Params.Name, "bytes_"), &n)
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%%s"}]}}`, m.ID)
		fmt.Fprintf(w, frame, strings.Repeat("p", n-len(frame)+2))
	}
}

// Every 2xx status is success and nothing else is; a JSON body of exactly
// max_response_bytes is read, one byte more is refused.
func TestHTTPStatusAndBodyBounds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(boundServer))
	defer srv.Close()
	const limit = 1000
	c, err := Connect(context.Background(), "b", ServerConfig{URL: srv.URL, MaxResponseBytes: limit}, Options{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		want string // "" = success; else a prefix of the error after "mcpclient b: tool <tool>: "
	}{
		{"status_200", ""},
		{"status_202", ""},
		{"status_299", ""},
		{"status_300", "http 300: "},
		{"status_404", "http 404: "},
		{"status_500", "http 500: "},
		{fmt.Sprint("bytes_", limit), ""},
		{fmt.Sprint("bytes_", limit+1), fmt.Sprintf("response exceeds max_response_bytes=%d (observed at least %d bytes)", limit, limit+1)},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := c.callToolResult(ctx, tt.tool, nil)
		cancel()
		if tt.want == "" && err != nil ||
			tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), "mcpclient b: tool "+tt.tool+": "+tt.want)) {
			t.Errorf("%s: err = %v, want %q", tt.tool, err, tt.want)
		}
	}
}

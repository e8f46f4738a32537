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

// protoServer is a Streamable HTTP MCP server whose tools/list pages and
// call behaviour a test sets; it records every notification's params and
// the initialize params.
type protoServer struct {
	pages [][]string // tool names per tools/list page
	opts  Options    // for Connect; HTTPClient is set by connect

	mu       sync.Mutex
	notified map[string][]json.RawMessage
	callIDs  []json.RawMessage
	init     json.RawMessage
}

func (s *protoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	if r.Method == http.MethodDelete || m.Method == "" || strings.HasPrefix(m.Method, "notifications/") {
		s.mu.Lock()
		if s.notified == nil {
			s.notified = map[string][]json.RawMessage{}
		}
		s.notified[m.Method] = append(s.notified[m.Method], m.Params)
		s.mu.Unlock()
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
	switch m.Method {
	case "initialize":
		s.mu.Lock()
		s.init = m.Params
		s.mu.Unlock()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}`, m.ID)
	case "tools/list":
		var p struct{ Cursor string }
		_ = json.Unmarshal(m.Params, &p)
		page := 0
		fmt.Sscan(p.Cursor, &page)
		var tools []string
		for _, n := range s.pages[page] {
			if strings.HasPrefix(n, "{") { // a whole tool object
				tools = append(tools, n)
				continue
			}
			tools = append(tools, fmt.Sprintf(`{"name":%q}`, n))
		}
		next := ""
		if page+1 < len(s.pages) {
			next = fmt.Sprint(page + 1)
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[%s],"nextCursor":%q}}`, m.ID, strings.Join(tools, ","), next)
	case "tools/call":
		s.mu.Lock()
		s.callIDs = append(s.callIDs, m.ID)
		s.mu.Unlock()
		<-r.Context().Done() // never answers
	}
}

func (s *protoServer) connect(t *testing.T) (*Client, error) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	o := s.opts
	o.HTTPClient = srv.Client()
	c, err := Connect(context.Background(), "p", ServerConfig{URL: srv.URL + "/mcp"}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = c.Discover(ctx)
	return c, err
}

// Two tools of one name in one tools/list (one page or across pages) reject
// the server: the model could not tell which one it calls.
func TestDuplicateToolNamesRejectTheServer(t *testing.T) {
	for _, pages := range [][][]string{
		{{"a", "b", "a"}},
		{{"a", "b"}, {"c", "b"}},
	} {
		_, err := (&protoServer{pages: pages}).connect(t)
		if err == nil || !strings.Contains(err.Error(), "duplicate tool name") || classOf(err) != classMCP {
			t.Errorf("pages %v: err = %v", pages, err)
		}
	}
	if _, err := (&protoServer{pages: [][]string{{"a"}, {"b"}}}).connect(t); err != nil {
		t.Errorf("distinct names across pages: %v", err)
	}
}

// initialize names odek and Options.Version as the client, "dev" when the
// caller set none, and asks for the protocol revision odek speaks.
func TestInitializeClientInfo(t *testing.T) {
	for version, want := range map[string]string{"": "dev", "1.4.2": "1.4.2"} {
		s := &protoServer{pages: [][]string{{"a"}}, opts: Options{Version: version}}
		if _, err := s.connect(t); err != nil {
			t.Fatal(err)
		}
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
			ClientInfo      struct{ Name, Version string }
		}
		if err := json.Unmarshal(s.init, &p); err != nil {
			t.Fatalf("initialize params %s: %v", s.init, err)
		}
		if p.ClientInfo.Name != "odek" || p.ClientInfo.Version != want || p.ProtocolVersion != ProtocolVersion {
			t.Errorf("Version %q: initialize params %s, want clientInfo odek %s", version, s.init, want)
		}
	}
}

// Discover hands back each tool's input schema as the server sent it, and
// {"type":"object"} for a tool that sent none or null.
func TestDiscoverSchemaDefault(t *testing.T) {
	const given = `{"type":"object","properties":{"q":{"type":"string"}}}`
	s := &protoServer{pages: [][]string{{"none", `{"name":"null","inputSchema":null}`, `{"name":"given","inputSchema":` + given + `}`}}}
	c, err := s.connect(t)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"none": `{"type":"object"}`, "null": `{"type":"object"}`, "given": given}
	tools, err := c.Discover(context.Background())
	if err != nil || len(tools) != 3 {
		t.Fatalf("discover: %v, %d tools", err, len(tools))
	}
	for _, td := range tools {
		if string(td.InputSchema) != want[td.Name] {
			t.Errorf("%s: schema %s, want %s", td.Name, td.InputSchema, want[td.Name])
		}
	}
}

// A call given up on sends notifications/cancelled with the request's own id
// and why: "timeout" for a deadline, "cancelled by client" otherwise.
func TestCancelledNotificationNamesRequestAndReason(t *testing.T) {
	s := &protoServer{pages: [][]string{{"hang"}}}
	c, err := s.connect(t)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.callToolResult(ctx, "hang", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timed-out call: %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		for {
			s.mu.Lock()
			n := len(s.callIDs)
			s.mu.Unlock()
			if n == 2 {
				cancel2()
				return
			}
			time.Sleep(5 * time.Millisecond) // polling: both calls in flight is the state waited for
		}
	}()
	if _, err := c.callToolResult(ctx2, "hang", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var got []json.RawMessage
	for time.Now().Before(deadline) {
		s.mu.Lock()
		got = append([]json.RawMessage(nil), s.notified["notifications/cancelled"]...)
		s.mu.Unlock()
		if len(got) == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond) // polling: the two notifications are the event waited for
	}
	if len(got) != 2 {
		t.Fatalf("%d notifications/cancelled, want 2", len(got))
	}
	for i, want := range []string{"timeout", "cancelled by client"} {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if err := json.Unmarshal(got[i], &p); err != nil {
			t.Fatal(err)
		}
		if string(p.RequestID) != string(s.callIDs[i]) || p.Reason != want {
			t.Errorf("notification %d: requestId %s reason %q, want %s %q", i, p.RequestID, p.Reason, s.callIDs[i], want)
		}
	}
}

// Each SSE event's joined data is bounded by max, newlines between data
// lines included, beyond the bound on each line; one byte over closes the
// stream with the observed size.
func TestSSEEventSizeBound(t *testing.T) {
	const max = 20
	ten := "0123456789"
	tests := []struct {
		name, stream string
		want         string // "" = too large
		observed     int64
	}{
		{"joined lines at the bound", "data: " + ten + "\ndata: 012345678\n\n", ten + "\n012345678", 0},
		{"joined lines one over", "data: " + ten + "\ndata: " + ten + "\n\n", "", 21},
		{"empty data lines count their newline", "data: " + ten + "\ndata:\ndata: 01234567\n\n", ten + "\n\n01234567", 0},
		{"an event of another type is bounded too", "event: ping\ndata: " + ten + "\ndata: " + ten + "\n\ndata: ok\n\n", "", 21},
		{"a line over its own bound", "data: " + ten + ten + "\n\n", "", 26},
	}
	for _, tt := range tests {
		r := newSSEReader(strings.NewReader(tt.stream), max)
		got, err := r.next()
		var tl *ResponseTooLargeError
		switch {
		case tt.want == "" && (!errors.As(err, &tl) || tl.Limit != max || tl.Observed != tt.observed):
			t.Errorf("%s: err = %v, want too large (observed %d)", tt.name, err, tt.observed)
		case tt.want != "" && (err != nil || string(got) != tt.want):
			t.Errorf("%s: %q %v, want %q", tt.name, got, err, tt.want)
		}
	}
}

// The SSE reader yields the data of message events (unnamed or named
// "message"), skips other event types, comments and events without data,
// and keeps a final unnamed event that lacks its blank line.
func TestSSEReaderEvents(t *testing.T) {
	tests := []struct {
		stream string
		want   []string
	}{
		{"data: a\n\n", []string{"a"}},
		{"event: message\ndata: a\n\n", []string{"a"}},
		{"event: ping\ndata: p\n\ndata: b\n\n", []string{"b"}},
		{"event: message\ndata: m\n\nevent: ping\ndata: p\n\n", []string{"m"}},
		{": keepalive\n\n\n\ndata: c\n\n", []string{"c"}},
		{"data:a\ndata:b\n\ndata:  two\r\n\r\n", []string{"a\nb", " two"}},
		{"id: 7\nretry: 10\ndata: z\n\n", []string{"z"}},
		{"data\n\n", []string{""}},
		{"data: x", []string{"x"}},
		{"data: x\ndata: y\n", []string{"x\ny"}},
		{"data: a\n\nevent: ping\ndata: p", []string{"a"}},
		{"event: ping\n\n", nil},
		{"", nil},
	}
	for _, tt := range tests {
		r := newSSEReader(strings.NewReader(tt.stream), 1<<10)
		var got []string
		for range 10 { // bounded: a reader that never reaches EOF fails, not hangs
			data, err := r.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", tt.stream, err)
			}
			got = append(got, string(data))
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("%q: events %q, want %q", tt.stream, got, tt.want)
		}
	}
}

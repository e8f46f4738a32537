package mcpclient

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// standaloneServer is a sessionful 2025 server that sends requests on the
// standalone GET stream, outside any call: a ping and an elicitation. With
// huge set, the stream's first message is over max_response_bytes.
type standaloneServer struct {
	huge    bool
	mu      sync.Mutex
	answers map[string]string
	gets    []string // the session each GET carried
}

func (s *standaloneServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.mu.Lock()
		s.gets = append(s.gets, r.Header.Get("Mcp-Session-Id"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if s.huge {
			fmt.Fprintf(w, "data: %s\n\n", strings.Repeat("x", 5000))
		}
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"bg-1\",\"method\":\"ping\"}\n\n")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"bg-2\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"Proceed?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	w.Header().Set("Content-Type", "application/json")
	switch m.Method {
	case "server/discover":
		w.WriteHeader(http.StatusBadRequest)
	case "initialize":
		w.Header().Set("Mcp-Session-Id", "sess-7")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}}}}`, m.ID)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`, m.ID)
	case "tools/call":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"echoed"}]}}`, m.ID)
	case "":
		s.mu.Lock()
		if s.answers == nil {
			s.answers = map[string]string{}
		}
		s.answers[strings.Trim(string(m.ID), `"`)] = string(m.Result)
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func (s *standaloneServer) answered(t *testing.T, ids ...string) map[string]string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		n := 0
		for _, id := range ids {
			if _, ok := s.answers[id]; ok {
				n++
			}
		}
		out := map[string]string{}
		for k, v := range s.answers {
			out[k] = v
		}
		s.mu.Unlock()
		if n == len(ids) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("answers %v, want %v", out, ids)
		}
	}
}

// A legacy HTTP server's requests outside any call arrive on the standalone
// GET stream odek opens after initialize (with the session), and are
// answered as on a call's stream: ping with {}, elicitation declined.
func TestStandaloneStreamRequestsAreAnswered(t *testing.T) {
	t.Parallel()
	srv := &standaloneServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ns := &notices{}
	c, _, err := connectDiscovered(t, "bg", ServerConfig{URL: ts.URL}, Options{OnNotice: ns.add})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.answered(t, "bg-1", "bg-2")
	if got["bg-1"] != "{}" || got["bg-2"] != `{"action":"decline"}` {
		t.Errorf("answers %v", got)
	}
	srv.mu.Lock()
	if len(srv.gets) != 1 || srv.gets[0] != "sess-7" {
		t.Errorf("GETs %v", srv.gets)
	}
	srv.mu.Unlock()
	_ = c.Close()
}

// A message over max_response_bytes on the standalone stream drops that
// stream, not the connection: calls go on.
func TestStandaloneStreamIsBounded(t *testing.T) {
	t.Parallel()
	srv := &standaloneServer{huge: true}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _, err := connectDiscovered(t, "bg", ServerConfig{URL: ts.URL, MaxResponseBytes: 1024}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := eraCall(t, c, "echo"); err != nil || !strings.Contains(r.Text, "echoed") {
		t.Errorf("call after an oversized standalone message: %v", err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.answers) != 0 {
		t.Errorf("answered what followed an oversized message: %v", srv.answers)
	}
}

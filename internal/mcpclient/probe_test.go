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

// The 2026-07-28 probe falls back to initialize on every answer that does
// not show a modern server, on both transports: a result that is no
// DiscoverResult, an error of any code (an HTTP 5xx too), and silence.
func TestProbeFallsBackOnAnyNonModernAnswer(t *testing.T) {
	t.Parallel()
	t.Run("stdio result without supportedVersions", func(t *testing.T) {
		t.Parallel()
		c, err := eraClient(t, "no-versions", ServerConfig{}, Options{})
		if err != nil {
			t.Fatalf("discover: %v", err)
		}
		r, err := eraCall(t, c, "seen")
		if err != nil {
			t.Fatal(err)
		}
		if c.Era() != EraLegacy || !strings.Contains(r.Text, "server/discover,initialize,notifications/initialized,tools/list") {
			t.Errorf("era %q, server saw %q", c.Era(), r.Text)
		}
	})
	for _, tt := range []struct{ name, answer string }{
		{"http 500", "500"},
		{"http 503 with a JSON-RPC error", "503rpc"},
		{"http result without supportedVersions", "no-versions"},
		{"http silence", "silent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := &legacyHTTP{discover: tt.answer}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			c, tools, err := connectDiscovered(t, "old", ServerConfig{URL: ts.URL}, Options{timings: timings{probe: 300 * time.Millisecond}})
			if err != nil {
				t.Fatalf("discover: %v", err)
			}
			if c.Era() != EraLegacy || len(tools) != 1 {
				t.Errorf("era %q, tools %v", c.Era(), tools)
			}
			if got := srv.methods(); !strings.HasPrefix(got, "server/discover,initialize,notifications/initialized,tools/list") {
				t.Errorf("server saw %s", got)
			}
		})
	}
}

// legacyHTTP is a sessionful 2025 server that answers server/discover in
// one of several non-modern ways.
type legacyHTTP struct {
	discover string
	mu       sync.Mutex
	seen     []string
}

func (s *legacyHTTP) methods() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.seen, ",")
}

func (s *legacyHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, m.Method)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case m.Method == "server/discover" && s.discover == "500":
		http.Error(w, "internal error", http.StatusInternalServerError)
	case m.Method == "server/discover" && s.discover == "503rpc":
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"no session"}}`)
	case m.Method == "server/discover" && s.discover == "no-versions":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	case m.Method == "server/discover":
		<-r.Context().Done() // holds a session-less POST open
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "s1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}}}}`, m.ID)
	case m.Method == "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`, m.ID)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

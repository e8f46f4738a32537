package mcpclient

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// capsServer is a modern Streamable HTTP server that records the
// clientCapabilities each request's _meta carried.
type capsServer struct {
	mu   sync.Mutex
	caps []string // "method caps"
}

func (s *capsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.mu.Lock()
	s.caps = append(s.caps, m.Method+" "+string(m.Params.Meta[metaClientCapabilities]))
	s.mu.Unlock()
	result := map[string]any{"content": eraText("ok")}
	switch m.Method {
	case "server/discover":
		result = map[string]any{"supportedVersions": []string{ModernProtocolVersion}, "capabilities": map[string]any{"tools": map[string]any{}}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

// odek declares the OAuth client credentials extension only to a server
// it logs in to with it: an HTTP server without mcp_servers.<s>.oauth is
// told no extension at all.
func TestHTTPWithoutOAuthDeclaresNoExtension(t *testing.T) {
	t.Parallel()
	s := &capsServer{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, _, err := connectDiscovered(t, "cp", ServerConfig{URL: srv.URL}, Options{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eraCall(t, c, "t"); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, want := strings.Join(s.caps, "; "), "server/discover {}; tools/list {}; tools/call {}"; got != want {
		t.Errorf("clientCapabilities sent: %s\nwant %s", got, want)
	}
}

// legacyTaskServer is a legacy server, in memory, whose initialize result
// lists the Tasks extension among its capabilities (no legacy revision
// has it) and whose tool "t" is answered with a completed task.
func legacyTaskServer(end *memServer) {
	serveRequests(end, func(b []byte, send func(map[string]any)) {
		var m eraMsg
		if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
			return
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}, "extensions": map[string]any{extensionTasks: map[string]any{}}}}})
		case "tools/list":
			send(map[string]any{"id": m.ID, "result": map[string]any{"tools": []any{
				map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}})
		case "tools/call":
			send(map[string]any{"id": m.ID, "result": map[string]any{"resultType": "task", "taskId": "task-1",
				"status": "completed", "result": map[string]any{"content": eraText("done")}}})
		default:
			send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	})
}

// The Tasks extension is a modern server's, advertised in its
// DiscoverResult: a legacy server that names it in its initialize result
// was never told odek polls tasks, and a task it answers with fails the
// call.
func TestLegacyServerTaskIsRefused(t *testing.T) {
	t.Parallel()
	c, _, err := connectInMemory(t, "lt", ServerConfig{}, Options{}, legacyTaskServer)
	if err != nil {
		t.Fatal(err)
	}
	if c.Era() != EraLegacy {
		t.Fatalf("era %q, want legacy", c.Era())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.callToolResult(ctx, "t", json.RawMessage(`{}`))
	if want := "mcpclient lt: tool t: answered with a task, but odek did not declare the Tasks extension to this server"; err == nil || err.Error() != want {
		t.Errorf("result %+v, err %v; want %s", r, err, want)
	}
}

package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseParamHeaders(t *testing.T) {
	tests := []struct {
		name, schema, want, err string
	}{
		{"none", `{"type":"object","properties":{"q":{"type":"string"}}}`, "", ""},
		{"one", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`, "Region=region", ""},
		{"nested", `{"properties":{"a":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"B"}}},"c":{"type":"boolean","x-mcp-header":"C"}}}`, "B=a.b C=c", ""},
		{"root", `{"x-mcp-header":"R","type":"string"}`, "", "the schema root"},
		{"number", `{"properties":{"n":{"type":"number","x-mcp-header":"N"}}}`, "", "only string, integer and boolean"},
		{"not a token", `{"properties":{"n":{"type":"string","x-mcp-header":"A B"}}}`, "", "HTTP token"},
		{"empty", `{"properties":{"n":{"type":"string","x-mcp-header":""}}}`, "", "HTTP token"},
		{"duplicate", `{"properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`, "", "appears twice"},
		{"through items", `{"properties":{"a":{"type":"array","items":{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}}}}`, "", `under "items" at properties.a:`},
		{"in oneOf", `{"oneOf":[{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}]}`, "", `under "oneOf" at the root:`},
		{"other keywords", `{"$defs":{"a":{"type":"string"}},"properties":{"r":{"type":"string","x-mcp-header":"R"}}}`, "R=r", ""},
		{"not an object", `[1]`, "", ""},
	}
	for _, tt := range tests {
		got, err := parseParamHeaders(json.RawMessage(tt.schema))
		var parts []string
		for _, h := range got {
			parts = append(parts, h.Name+"="+strings.Join(h.Path, "."))
		}
		slices.Sort(parts)
		if strings.Join(parts, " ") != tt.want || (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: %v %v, want %q %q", tt.name, parts, err, tt.want, tt.err)
		}
	}
}

// The search for annotations outside "properties" gives up past depth 64
// (then the schema is refused), in objects and arrays alike.
func TestParamHeaderSearchIsDepthBounded(t *testing.T) {
	valid := `"properties":{"r":{"type":"string","x-mcp-header":"R"}}`
	for _, open := range []string{`{"a":`, `[`} {
		close := map[string]string{`{"a":`: "}", `[`: "]"}[open]
		for _, n := range []int{64, 65} { // containers; the 1 inside is at depth n
			schema := `{"examples":` + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + "," + valid + "}"
			_, err := parseParamHeaders(json.RawMessage(schema))
			if (err != nil) != (n > 64) {
				t.Errorf("%d levels of %s: err = %v", n, open, err)
			}
		}
	}
}

func TestSetParamHeaders(t *testing.T) {
	specs := []paramHeader{{"Region", []string{"region"}}, {"Count", []string{"opts", "count"}}, {"Dry", []string{"dry"}},
		{"Missing", []string{"nope"}}, {"Null", []string{"null"}}, {"Float", []string{"f"}}, {"Obj", []string{"opts"}}}
	h := http.Header{}
	setParamHeaders(h, specs, json.RawMessage(`{"region":"Zürich","opts":{"count":42},"dry":false,"null":null,"f":1.5}`))
	want := map[string]string{"Mcp-Param-Region": "=?base64?WsO8cmljaA==?=", "Mcp-Param-Count": "42", "Mcp-Param-Dry": "false"}
	if len(h) != len(want) {
		t.Errorf("headers %v, want %v", h, want)
	}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, h.Get(k), v)
		}
	}
}

// modernHTTPServer is a 2026-07-28 Streamable HTTP server whose tools carry
// x-mcp-header annotations; it records each tools/call's headers.
type modernHTTPServer struct {
	mu       sync.Mutex
	headers  []http.Header
	notified []string
	hangDone chan struct{} // closed when a "hang" call's request ended
}

func (s *modernHTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	var p struct {
		Name string `json:"name"`
	}
	var full struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &full)
	_ = json.Unmarshal(full.Params, &p)
	if strings.HasPrefix(m.Method, "notifications/") {
		s.mu.Lock()
		s.notified = append(s.notified, m.Method)
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.Method == "tools/call" && p.Name == "hang" {
		<-r.Context().Done()
		close(s.hangDone)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch m.Method {
	case "server/discover":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`, m.ID)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":[
		  {"name":"sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}}}},
		  {"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}]}}`, m.ID)
	case "tools/call":
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}`, m.ID)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
	}
}

func TestHTTPParamHeadersMirrored(t *testing.T) {
	fake := &modernHTTPServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c, err := Connect(context.Background(), "web", ServerConfig{URL: srv.URL}, Options{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "sql" {
		t.Errorf("tools %+v: the tool with a broken annotation must be left out", tools)
	}
	if w := strings.Join(c.Warnings(), "\n"); !strings.Contains(w, `mcp server "web": tool "bad" left out: its inputSchema's x-mcp-header "N"`) {
		t.Errorf("warnings %q", w)
	}
	if _, err := c.CallTool(ctx, "sql", `{"region":"us-west1","query":"SELECT 1"}`); err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	h := fake.headers[0]
	if h.Get("Mcp-Param-Region") != "us-west1" || h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != "sql" ||
		h.Get("MCP-Protocol-Version") != "2026-07-28" || h.Get("Mcp-Session-Id") != "" {
		t.Errorf("headers %v", h)
	}
}

// A modern Streamable HTTP request is cancelled by closing its stream: no
// notifications/cancelled is POSTed (the 2026-07-28 binding defines none).
func TestHTTPModernCancelClosesTheStream(t *testing.T) {
	fake := &modernHTTPServer{hangDone: make(chan struct{})}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c, err := Connect(context.Background(), "web", ServerConfig{URL: srv.URL}, Options{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	short, stop := context.WithTimeout(ctx, 200*time.Millisecond)
	defer stop()
	if _, err := c.CallTool(short, "hang", `{}`); err == nil {
		t.Fatal("hang returned")
	}
	select {
	case <-fake.hangDone: // the server saw its request end
	case <-time.After(5 * time.Second):
		t.Fatal("the hanging request's stream was not closed")
	}
	if _, err := c.CallTool(ctx, "sql", `{}`); err != nil { // a later request flushes the writer queue
		t.Fatal(err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.notified) != 0 {
		t.Errorf("notifications POSTed: %v", fake.notified)
	}
}

func FuzzParamHeaders(f *testing.F) {
	f.Add([]byte(`{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}`), []byte(`{"a":"x\ny"}`))
	f.Add([]byte(`{"properties":{"a":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"B"}}}}}`), []byte(`{"a":{"b":7}}`))
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		specs, err := parseParamHeaders(schema)
		if err != nil {
			return
		}
		h := http.Header{}
		setParamHeaders(h, specs, args)
		for k, vs := range h {
			if !isToken(k) {
				t.Fatalf("header name %q", k)
			}
			for _, v := range vs {
				for i := 0; i < len(v); i++ {
					if c := v[i]; c != ' ' && c != '\t' && (c < 0x21 || c > 0x7e) {
						t.Fatalf("header %s value %q holds %#x", k, v, c)
					}
				}
			}
		}
	})
}

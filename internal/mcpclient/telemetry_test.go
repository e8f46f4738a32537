package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/odek-run/odek/internal/telemetry"
)

// TestHTTPRequestsCarryTheirSpan: a traced client's tools/call carries its
// MCP span's traceparent both in params._meta and as a header, in the
// trace of the call's context; an untraced client sends neither.
func TestHTTPRequestsCarryTheirSpan(t *testing.T) {
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer collector.Close()
	tr, _ := telemetry.Setup(telemetry.Options{LookupEnv: func(k string) (string, bool) {
		return collector.URL, k == "OTEL_EXPORTER_OTLP_ENDPOINT"
	}})
	if tr == nil {
		t.Fatal("tracing is off")
	}
	defer tr.Shutdown(context.Background())
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	parent := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))

	for _, traced := range []bool{true, false} {
		var mu sync.Mutex
		var header, meta string
		fake := &fakeHTTPServer{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				Method string `json:"method"`
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &m)
			if m.Method == "tools/call" {
				mu.Lock()
				header = r.Header.Get("traceparent")
				meta, _ = m.Params.Meta["traceparent"].(string)
				mu.Unlock()
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			fake.ServeHTTP(w, r)
		}))
		o := Options{HTTPClient: srv.Client()}
		if traced {
			o.Telemetry = tr
		}
		c, err := Connect(parent, "web", ServerConfig{URL: srv.URL + "/mcp"}, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Discover(parent); err != nil {
			t.Fatal(err)
		}
		if out, err := c.CallTool(parent, "echo", `{}`); err != nil || !strings.Contains(out, "sse hello") {
			t.Fatalf("echo: %q %v", out, err)
		}
		c.Close()
		srv.Close()
		mu.Lock()
		switch {
		case !traced && (header != "" || meta != ""):
			t.Errorf("untraced: header %q _meta %q, want neither", header, meta)
		case traced && (header != meta || !strings.HasPrefix(header, "00-"+tid.String()+"-") || strings.Contains(header, sid.String())):
			t.Errorf("traced: header %q _meta %q, want the same traceparent of a new span in trace %s", header, meta, tid)
		}
		mu.Unlock()
	}
}

// TestToolErrorResultIsAnErrorSpan: a tools/call whose result says isError
// ends its span with error.type tool_error (the MCP conventions); a
// successful call's span carries no error.type.
func TestToolErrorResultIsAnErrorSpan(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies bytes.Buffer
	collector := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.Copy(&bodies, r.Body)
	}))
	defer collector.Close()
	for _, tool := range []string{"error_result", "slow"} {
		bodies.Reset()
		tr, _ := telemetry.Setup(telemetry.Options{LookupEnv: func(k string) (string, bool) {
			return collector.URL + "/v1/traces", k == "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
		}})
		if tr == nil {
			t.Fatal("tracing is off")
		}
		root := t.TempDir()
		c, _, err := connectDiscovered(t, "fx", ServerConfig{Command: fixtureBin, Args: []string{"-root", root}, ArtifactRoots: []string{root}},
			Options{Environ: testEnviron, Telemetry: tr})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.CallTool(context.Background(), tool, `{"ms":1}`)
		if w := tr.Shutdown(context.Background()); len(w) > 0 {
			t.Fatal(w)
		}
		mu.Lock()
		b := bytes.Clone(bodies.Bytes())
		mu.Unlock()
		if !bytes.Contains(b, []byte("tools/call "+tool)) {
			t.Fatalf("%s: no tools/call span exported", tool)
		}
		if got, want := bytes.Contains(b, []byte("tool_error")), tool == "error_result"; got != want {
			t.Errorf("%s: error.type tool_error exported = %t, want %t", tool, got, want)
		}
	}
}

func TestToolFailed(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		`{"content":[],"isError":true}`:                            true,
		`{"content":[],"isError":false}`:                           false,
		`{"content":[{"type":"text","text":"isError"}]}`:           false,
		`{"content":[{"type":"text","text":"\"isError\": true"}]}`: false,
		`{"isError":"yes"}`:                                        false,
		`{}`:                                                       false,
	} {
		if got := toolFailed(json.RawMessage(in)); got != want {
			t.Errorf("toolFailed(%s) = %t, want %t", in, got, want)
		}
	}
}

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

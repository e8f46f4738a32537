package mcpclient

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/odek-run/odek/internal/telemetry"
)

// spanSink is an OTLP endpoint that keeps every export's bytes; a tracer
// it makes exports there.
type spanSink struct {
	srv *httptest.Server
	mu  sync.Mutex
	b   bytes.Buffer
}

func newSpanSink(t *testing.T) *spanSink {
	s := &spanSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, _ = io.Copy(&s.b, r.Body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// tracer is a new tracer exporting to s.
func (s *spanSink) tracer(t *testing.T) *telemetry.Tracer {
	tr, _ := telemetry.Setup(telemetry.Options{LookupEnv: func(k string) (string, bool) {
		return s.srv.URL + "/v1/traces", k == "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	}})
	if tr == nil {
		t.Fatal("tracing is off")
	}
	return tr
}

// flush shuts tr down (exporting what it holds) and returns, then forgets,
// everything s received.
func (s *spanSink) flush(t *testing.T, tr *telemetry.Tracer) []byte {
	if w := tr.Shutdown(context.Background()); len(w) > 0 {
		t.Fatal(w)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := bytes.Clone(s.b.Bytes())
	s.b.Reset()
	return b
}

// The spans of a stdio server's requests say network.transport pipe; an
// error answer (the fixture answers server/discover with -32601) ends its
// span with the JSON-RPC code and an error.type, and a request that
// succeeded ends without either. TelemetryFor gives each phase its own
// tracer, so each export holds only that phase's spans.
func TestStdioSpansTransportAndErrorAnswers(t *testing.T) {
	t.Parallel()
	sink := newSpanSink(t)
	var cur atomic.Pointer[telemetry.Tracer]
	root := t.TempDir()
	c, err := Connect(context.Background(), "fx", ServerConfig{Command: fixtureBin, Args: []string{"-root", root}, ArtifactRoots: []string{root}},
		Options{Environ: testEnviron, TelemetryFor: cur.Load})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	open := sink.tracer(t)
	cur.Store(open)
	if _, err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	cur.Store(nil)
	b := sink.flush(t, open)
	for _, want := range []string{"server/discover", "initialize", telemetry.AttrRPCStatus, "-32601", telemetry.AttrErrorType} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the opening's spans lack %q", want)
		}
	}

	call := sink.tracer(t)
	cur.Store(call)
	if _, err := c.CallTool(context.Background(), "echo", `{}`); err != nil {
		t.Fatal(err)
	}
	cur.Store(nil)
	b = sink.flush(t, call)
	if !bytes.Contains(b, []byte("tools/call echo")) {
		t.Fatal("no tools/call span exported")
	}
	if !bytes.Contains(b, []byte(telemetry.AttrNetworkTransport)) || !bytes.Contains(b, []byte("pipe")) || bytes.Contains(b, []byte("tcp")) {
		t.Errorf("the call's span does not say network.transport pipe")
	}
	for _, unwanted := range []string{telemetry.AttrRPCStatus, telemetry.AttrErrorType} {
		if bytes.Contains(b, []byte(unwanted)) {
			t.Errorf("the call that worked ended its span with %s", unwanted)
		}
	}
}

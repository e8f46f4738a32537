package telemetry_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/telemetry"
)

// A collector that is not there, one that never answers and one that
// refuses: the run's spans, or its metrics, are lost with a warning, and
// Shutdown returns within its limit (generous bounds here: timing figures
// belong in benchmarks), never an error the run would fail on. Each signal
// is tried alone, so that each exporter's abandonment is seen.
func TestCollectorFailuresCostAWarning(t *testing.T) {
	t.Parallel()
	closed := func(t *testing.T, _ chan struct{}) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}
	// silent closes hungUp when odek hangs up on it.
	silent := func(t *testing.T, hungUp chan struct{}) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			_, _ = io.Copy(io.Discard, c) // reads the request, answers nothing, until odek hangs up
			close(hungUp)
		}()
		return "http://" + l.Addr().String()
	}
	refusing := func(t *testing.T, _ chan struct{}) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "bad token", http.StatusUnauthorized)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	for _, tc := range []struct {
		name     string
		signal   string // the one exported; the other is none
		endpoint func(*testing.T, chan struct{}) string
		want     []string
	}{
		{"unreachable", "traces", closed, []string{"traces could not be exported", "connection refused", "3 spans were not exported"}},
		{"never answers", "traces", silent, []string{"flushing traces stopped after 300ms", "3 spans were not exported"}},
		{"4xx", "traces", refusing, []string{"HTTP 401: bad token", "3 spans were not exported"}},
		{"unreachable", "metrics", closed, []string{"metrics could not be exported", "connection refused"}},
		{"never answers", "metrics", silent, []string{"metrics could not be exported", "no answer"}},
		{"4xx", "metrics", refusing, []string{"metrics could not be exported", "HTTP 401: bad token"}},
	} {
		t.Run(tc.signal+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			hungUp := make(chan struct{})
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": tc.endpoint(t, hungUp), "OTEL_EXPORTER_OTLP_TIMEOUT": "60000",
				"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}
			delete(env, "OTEL_"+strings.ToUpper(tc.signal)+"_EXPORTER")
			tr, warn := telemetry.Setup(telemetry.Options{LookupEnv: lookup(env),
				Settings: telemetry.Settings{ShutdownTimeout: 300 * time.Millisecond}})
			if tr == nil || len(warn) > 0 {
				t.Fatalf("Setup: %v %v", tr, warn)
			}
			ctx, agent := tr.StartAgent(context.Background(), telemetry.AgentInfo{Model: "m", RunID: "r"})
			_, tool := tr.StartTool(ctx, telemetry.ToolInfo{Name: "shell", CallID: "c1"})
			tool.EndTool("", nil)
			_, chat := tr.StartChat(ctx, telemetry.ChatInfo{Model: "m", Attempt: 1})
			chat.EndChat(telemetry.ChatResult{}, nil)
			agent.EndAgent(telemetry.AgentResult{})
			start := time.Now()
			got := strings.Join(tr.Shutdown(context.Background()), "\n")
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Shutdown took %v with a 300ms limit", d)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("warnings %q lack %q", got, w)
				}
			}
			if tc.name == "never answers" {
				// The export waiting on it (its own timeout is a minute)
				// is abandoned with the run, not left behind.
				select {
				case <-hungUp:
				case <-time.After(20 * time.Second):
					t.Error("the export still waits on the silent collector after Shutdown")
				}
			}
		})
	}
}

// A malformed TRACEPARENT is ignored with a warning: the run starts its
// own trace.
func TestMalformedTraceparentIsIgnored(t *testing.T) {
	t.Parallel()
	col := startCollector(t)
	tr, warn := telemetry.Setup(telemetry.Options{LookupEnv: lookup(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + col.addr, "TRACEPARENT": "00-not-a-trace-01",
		"BAGGAGE": "=%%%",
	})})
	if tr == nil {
		t.Fatal("Setup: off")
	}
	want := []string{`TRACEPARENT "00-not-a-trace-01" is not a W3C traceparent; ignored`, "BAGGAGE is not W3C baggage; ignored"}
	if len(warn) != len(want) {
		t.Fatalf("warnings %q, want %q", warn, want)
	}
	for i := range want {
		if !strings.Contains(warn[i], want[i]) {
			t.Errorf("warning %q, want %q", warn[i], want[i])
		}
	}
	_, agent := tr.StartAgent(context.Background(), telemetry.AgentInfo{Model: "m", RunID: "r"})
	agent.SetConversationID("20261206-s")
	agent.EndAgent(telemetry.AgentResult{})
	if w := tr.Shutdown(context.Background()); len(w) > 0 {
		t.Fatal(w)
	}
	s := col.waitSpans(t, 1)[0]
	if s.Parent != "" || len(s.TraceID) != 32 {
		t.Errorf("root span: trace %q parent %q, want a new trace and no parent", s.TraceID, s.Parent)
	}
	checkAttrs(t, s, map[string]any{"gen_ai.conversation.id": "20261206-s"})
}

// acceptAll is a collector stand-in that answers 200 to everything.
func acceptAll(tb testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// A periodic metrics export still waiting on a collector that never
// answers (its own timeout is a minute) is abandoned at the end of the
// run: Shutdown keeps to its limit.
func TestPeriodicExportAbandoned(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted, hungUp := make(chan struct{}), make(chan struct{})
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		close(accepted)
		_, _ = io.Copy(io.Discard, c)
		close(hungUp)
	}()
	tr, warn := telemetry.Setup(telemetry.Options{LookupEnv: lookup(map[string]string{
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + l.Addr().String() + "/v1/metrics",
		"OTEL_EXPORTER_OTLP_TIMEOUT":          "60000", "OTEL_METRIC_EXPORT_INTERVAL": "10"}),
		Settings: telemetry.Settings{ShutdownTimeout: 300 * time.Millisecond}})
	if tr == nil || len(warn) > 0 {
		t.Fatalf("Setup: %v %v", tr, warn)
	}
	_, chat := tr.StartChat(context.Background(), telemetry.ChatInfo{Model: "m", Attempt: 1})
	chat.EndChat(telemetry.ChatResult{}, nil)
	select {
	case <-accepted: // the periodic export is under way
	case <-time.After(20 * time.Second):
		t.Fatal("no periodic export")
	}
	start := time.Now()
	got := strings.Join(tr.Shutdown(context.Background()), "\n")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Shutdown took %v with a 300ms limit", d)
	}
	if !strings.Contains(got, "metrics could not be exported") {
		t.Errorf("warnings %q", got)
	}
	select {
	case <-hungUp:
	case <-time.After(20 * time.Second):
		t.Error("the periodic export still waits after Shutdown")
	}
}

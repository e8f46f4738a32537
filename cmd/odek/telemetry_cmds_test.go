package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/odek-run/odek/internal/testbin"
)

// telemetryCmds are the script commands of traced runs: a real OTLP
// receiver (internal/telemetry/testdata/collector) and a listener that
// never answers.
var telemetryCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"otel-collector": cmdOtelCollector,
	"otel-parent":    cmdOtelParent,
	"otel-trace":     cmdOtelTrace,
	"otel-env":       cmdOtelEnv,
	"otel-silent":    cmdOtelSilent,
	"otel-conns":     cmdOtelConns,
	"otel-metric":    cmdOtelMetric,
}

// otelKey finds a script's otelHolder among its testscript values.
type otelKey struct{}

// otelHolder is a script's collector and its spans, or its silent
// listener's count of connections.
type otelHolder struct {
	started atomic.Bool
	mu      sync.Mutex
	cond    *sync.Cond
	spans   []otelSpan
	points  []otelPoint // of the metrics exports, in arrival order
	conns   atomic.Int64
}

// otelSpan is what the assertions read of a received span.
type otelSpan struct{ TraceID, SpanID, ParentSpanID, Name string }

// newOtelHolder is a script's holder, before any command starts a peer.
func newOtelHolder() *otelHolder {
	h := &otelHolder{}
	h.cond = sync.NewCond(&h.mu)
	return h
}

func otel(ts *testscript.TestScript) *otelHolder {
	h := ts.Value(otelKey{}).(*otelHolder)
	if !h.started.Load() {
		ts.Fatalf("no otel-collector or otel-silent running")
	}
	return h
}

// cmdOtelCollector starts the test OTLP collector and points the
// environment's OTEL_EXPORTER_OTLP_ENDPOINT at it: otel-collector
func cmdOtelCollector(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: otel-collector")
	}
	bin, err := testbin.Program("otelcollector", nil, "-C", "internal/telemetry/testdata/collector", "build", "-o", "{out}", ".")
	ts.Check(err)
	cmd := exec.Command(bin)
	out, err := cmd.StdoutPipe()
	ts.Check(err)
	cmd.Stderr = os.Stderr
	ts.Check(cmd.Start())
	ts.Defer(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "listening ") {
		ts.Fatalf("collector did not start: %q %v", sc.Text(), sc.Err())
	}
	h := ts.Value(otelKey{}).(*otelHolder)
	h.started.Store(true)
	ts.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+strings.TrimPrefix(sc.Text(), "listening "))
	go func() {
		for sc.Scan() {
			kind, body, _ := strings.Cut(sc.Text(), " ")
			h.mu.Lock()
			switch kind {
			case "traces":
				h.spans = append(h.spans, otlpSpans(body)...)
			case "metrics":
				h.points = append(h.points, otlpPoints(body)...)
			}
			h.cond.Broadcast()
			h.mu.Unlock()
		}
	}()
}

// otlpSpans reads the collector's OTLP JSON line into spans.
func otlpSpans(body string) []otelSpan {
	var doc struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []otelSpan `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	_ = json.Unmarshal([]byte(body), &doc)
	var out []otelSpan
	for _, rs := range doc.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

// waitFor waits (20s at most) until ok holds of the spans received, and
// returns them.
func (h *otelHolder) waitFor(ok func([]otelSpan) bool) ([]otelSpan, bool) {
	var spans []otelSpan
	held := h.wait(func() bool { spans = append(spans[:0], h.spans...); return ok(spans) })
	return spans, held
}

// wait waits (20s at most) until ok, which runs under h.mu, holds.
func (h *otelHolder) wait(ok func() bool) bool {
	timer := time.AfterFunc(20*time.Second, func() {
		h.mu.Lock()
		h.cond.Broadcast()
		h.mu.Unlock()
	})
	defer timer.Stop()
	deadline := time.Now().Add(20 * time.Second)
	h.mu.Lock()
	defer h.mu.Unlock()
	for !ok() && time.Now().Before(deadline) {
		h.cond.Wait()
	}
	return ok()
}

// findParented reports whether a span named child has as parent a span
// named parent, or the span id parent.
func findParented(spans []otelSpan, child, parent string) bool {
	byID := map[string]otelSpan{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	for _, s := range spans {
		if s.Name != child {
			continue
		}
		if s.ParentSpanID == parent || byID[s.ParentSpanID].Name == parent && s.ParentSpanID != "" {
			return true
		}
	}
	return false
}

// cmdOtelParent waits for a span named child whose parent is a span named
// parent (or whose parent span id is parent):
//
//	otel-parent 'invoke_agent odek' 'execute_tool delegate_tasks'
func cmdOtelParent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: otel-parent child parent")
	}
	spans, ok := otel(ts).waitFor(func(s []otelSpan) bool { return findParented(s, args[0], args[1]) })
	if !ok {
		ts.Fatalf("no span %q under %q in:\n%s", args[0], args[1], dumpSpans(spans))
	}
}

// cmdOtelTrace asserts that every span received is in trace id, and that
// there are at least n: otel-trace 0af7651916cd43dd8448eb211c80319c 10
func cmdOtelTrace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: otel-trace trace-id min-spans")
	}
	var n int
	if _, err := fmt.Sscan(args[1], &n); err != nil {
		ts.Fatalf("otel-trace: %v", err)
	}
	spans, ok := otel(ts).waitFor(func(s []otelSpan) bool { return len(s) >= n })
	if !ok {
		ts.Fatalf("got %d spans, want at least %d:\n%s", len(spans), n, dumpSpans(spans))
	}
	for _, s := range spans {
		if s.TraceID != args[0] {
			ts.Fatalf("span %q is in trace %s, not %s", s.Name, s.TraceID, args[0])
		}
	}
}

// cmdOtelEnv asserts that file holds the traceparent of the span named
// name: otel-env tp.txt 'execute_tool shell'
func cmdOtelEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: otel-env file span-name")
	}
	got := strings.TrimSpace(ts.ReadFile(args[0]))
	match := func(s []otelSpan) bool {
		for _, sp := range s {
			if sp.Name == args[1] && got == "00-"+sp.TraceID+"-"+sp.SpanID+"-01" {
				return true
			}
		}
		return false
	}
	if spans, ok := otel(ts).waitFor(match); !ok {
		ts.Fatalf("%s holds %q, no span %q has that context:\n%s", args[0], got, args[1], dumpSpans(spans))
	}
}

func dumpSpans(spans []otelSpan) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.TraceID + " " + s.SpanID + " <- " + s.ParentSpanID + " " + s.Name + "\n")
	}
	return b.String()
}

// cmdOtelSilent listens on a loopback port that accepts connections and
// never answers, counting them, and sets $OTEL_SILENT to its URL:
// otel-silent
func cmdOtelSilent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: otel-silent")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	h := ts.Value(otelKey{}).(*otelHolder)
	h.started.Store(true)
	var held []net.Conn
	var mu sync.Mutex
	ts.Defer(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range held {
			_ = c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.conns.Add(1)
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	ts.Setenv("OTEL_SILENT", "http://"+ln.Addr().String())
}

// cmdOtelConns asserts that the silent listener accepted a connection
// (negated: none): otel-conns
func cmdOtelConns(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: [!] otel-conns")
	}
	if n := otel(ts).conns.Load(); (n > 0) == neg {
		ts.Fatalf("the silent listener accepted %d connections", n)
	}
}

// otelPoint is what the assertions read of a received histogram point.
type otelPoint struct {
	Name, Unit string
	Attrs      map[string]string
	Count      uint64
	Sum        float64
}

// otlpPoints reads the collector's OTLP JSON metrics line into points.
func otlpPoints(body string) []otelPoint {
	var doc struct {
		ResourceMetrics []struct {
			ScopeMetrics []struct {
				Metrics []struct {
					Name, Unit string
					Histogram  struct {
						DataPoints []struct {
							Attributes []struct {
								Key   string
								Value map[string]any
							}
							Count string
							Sum   float64
						}
					}
				}
			}
		}
	}
	_ = json.Unmarshal([]byte(body), &doc)
	var out []otelPoint
	for _, rm := range doc.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				for _, dp := range m.Histogram.DataPoints {
					p := otelPoint{Name: m.Name, Unit: m.Unit, Attrs: map[string]string{}, Sum: dp.Sum}
					fmt.Sscan(dp.Count, &p.Count)
					for _, a := range dp.Attributes {
						for _, v := range a.Value {
							p.Attrs[a.Key] = fmt.Sprint(v)
						}
					}
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// cmdOtelMetric waits for a histogram point of metric name in unit with
// count values summing to sum ("-": any sum) and at least the attributes
// given as key=value:
//
//	otel-metric gen_ai.client.token.usage {token} 2 420 gen_ai.token.type=input
func cmdOtelMetric(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: otel-metric name unit count sum|- [key=value...]")
	}
	var count uint64
	if _, err := fmt.Sscan(args[2], &count); err != nil {
		ts.Fatalf("otel-metric: count: %v", err)
	}
	match := func(p otelPoint) bool {
		if p.Name != args[0] || p.Unit != args[1] || p.Count != count || (args[3] != "-" && fmt.Sprint(p.Sum) != args[3]) {
			return false
		}
		for _, kv := range args[4:] {
			k, v, _ := strings.Cut(kv, "=")
			if p.Attrs[k] != v {
				return false
			}
		}
		return true
	}
	h := otel(ts)
	var seen []otelPoint
	ok := h.wait(func() bool {
		seen = append(seen[:0], h.points...)
		return slices.ContainsFunc(seen, match)
	})
	if !ok {
		var b strings.Builder
		for _, p := range seen {
			fmt.Fprintf(&b, "%s %s count %d sum %v %v\n", p.Name, p.Unit, p.Count, p.Sum, p.Attrs)
		}
		ts.Fatalf("no point %v among:\n%s", args, b.String())
	}
}

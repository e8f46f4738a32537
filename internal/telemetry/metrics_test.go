package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/telemetry"
)

// metricPoint is one histogram point received, flattened from OTLP JSON.
type metricPoint struct {
	Resource    map[string]any
	Scope       string
	Name, Unit  string
	Temporality int
	Attrs       map[string]any
	Start, Time uint64
	Count       uint64
	Sum         float64
	Min, Max    float64
	Buckets     []uint64
	Bounds      []float64
}

// u64 reads OTLP JSON's 64-bit integers, which are decimal strings.
type u64 uint64

func (u *u64) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseUint(strings.Trim(string(b), `"`), 10, 64)
	*u = u64(n)
	return err
}

// flattenMetrics reads OTLP JSON (the Collector's JSON marshaller) into
// histogram points; a metric of another kind is an error.
func flattenMetrics(t *testing.T, body string) []metricPoint {
	var doc struct {
		ResourceMetrics []struct {
			Resource struct {
				Attributes []kv `json:"attributes"`
			} `json:"resource"`
			ScopeMetrics []struct {
				Scope struct {
					Name string `json:"name"`
				} `json:"scope"`
				Metrics []struct {
					Name, Unit string
					Histogram  *struct {
						AggregationTemporality int
						DataPoints             []struct {
							Attributes                      []kv
							StartTimeUnixNano, TimeUnixNano u64
							Count                           u64
							Sum, Min, Max                   float64
							BucketCounts                    []u64
							ExplicitBounds                  []float64
						}
					}
				} `json:"metrics"`
			} `json:"scopeMetrics"`
		} `json:"resourceMetrics"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Errorf("collector line: %v", err)
		return nil
	}
	var out []metricPoint
	for _, rm := range doc.ResourceMetrics {
		res := attrs(rm.Resource.Attributes)
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Histogram == nil {
					t.Errorf("metric %q is not a histogram: %s", m.Name, body)
					continue
				}
				for _, p := range m.Histogram.DataPoints {
					mp := metricPoint{Resource: res, Scope: sm.Scope.Name, Name: m.Name, Unit: m.Unit,
						Temporality: m.Histogram.AggregationTemporality, Attrs: attrs(p.Attributes),
						Start: uint64(p.StartTimeUnixNano), Time: uint64(p.TimeUnixNano), Count: uint64(p.Count),
						Sum: p.Sum, Min: p.Min, Max: p.Max, Bounds: p.ExplicitBounds}
					for _, c := range p.BucketCounts {
						mp.Buckets = append(mp.Buckets, uint64(c))
					}
					out = append(out, mp)
				}
			}
		}
	}
	return out
}

// pointsOf are the points of metric name whose attributes include want.
func pointsOf(ps []metricPoint, name string, want map[string]any) []metricPoint {
	var out []metricPoint
	for _, p := range ps {
		if p.Name != name {
			continue
		}
		match := true
		for k, v := range want {
			got, _ := json.Marshal(p.Attrs[k])
			exp, _ := json.Marshal(v)
			match = match && string(got) == string(exp)
		}
		if match {
			out = append(out, p)
		}
	}
	return out
}

// onePoint is the one point of name with the attributes want.
func onePoint(t *testing.T, ps []metricPoint, name string, want map[string]any) metricPoint {
	t.Helper()
	got := pointsOf(ps, name, want)
	if len(got) != 1 {
		t.Fatalf("%d points of %s with %v, want 1; all:\n%s", len(got), name, want, dumpPoints(ps))
	}
	return got[0]
}

func dumpPoints(ps []metricPoint) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s %v count %d sum %g buckets %v\n", p.Name, p.Attrs, p.Count, p.Sum, p.Buckets)
	}
	return b.String()
}

// The token and duration metrics of a run with known usage: a failed
// attempt and its retry, a tool call through an MCP server, the answer.
// Every point is checked against what fakellm reported, bucket by bucket.
func TestMetricsOfARun(t *testing.T) {
	t.Parallel()
	col := startCollector(t)
	fake, err := fakellm.Start(&fakellm.Script{ChatOnly: true, Turns: []fakellm.Turn{
		{Fault: "server_error"},
		{ToolCalls: []fakellm.ScriptCall{{ID: "call_wc", Name: "wc__word_count", Arguments: json.RawMessage(`{"text":"a b"}`)}},
			Usage: &fakellm.ScriptUsage{PromptTokens: 120, CompletionTokens: 30, CachedTokens: 100}},
		{Content: "done", Usage: &fakellm.ScriptUsage{PromptTokens: 300, CompletionTokens: 5}},
	}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	tr, warn := telemetry.Setup(telemetry.Options{Version: "test", LookupEnv: lookup(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + col.addr, "OTEL_SERVICE_NAME": "ci-job"})})
	if tr == nil || len(warn) > 0 {
		t.Fatalf("Setup: %v %v", tr, warn)
	}
	ctx, agent := tr.StartAgent(context.Background(), telemetry.AgentInfo{Model: "m", RunID: "run1"})
	mc, err := mcpclient.Connect(ctx, "wc", mcpclient.ServerConfig{Command: wordcountBin}, mcpclient.Options{Telemetry: tr})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	defs, err := mc.Discover(ctx)
	if err != nil || len(defs) != 1 {
		t.Fatalf("Discover: %v %v", defs, err)
	}
	reg, err := loop.NewRegistry(mcpclient.NewToolAdapter(mc, defs[0]))
	if err != nil {
		t.Fatal(err)
	}
	client := llm.New(llm.Options{BaseURL: fake.URL(), Stream: true, Telemetry: tr,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	res, err := loop.Run(ctx, loop.Options{Model: client, ModelName: "m", Tools: reg, Telemetry: tr}, "count the words")
	if err != nil || res.Answer != "done" {
		t.Fatalf("run: %v %v", res, err)
	}
	agent.EndAgent(telemetry.AgentResult{Termination: "completed"})
	if w := tr.Shutdown(context.Background()); len(w) > 0 {
		t.Fatalf("Shutdown warnings: %v", w)
	}
	exports := col.waitExports(t, 1)
	if len(exports) != 1 {
		t.Fatalf("%d metrics exports, want the one at the end of the run", len(exports))
	}
	ps := exports[0]
	port := int64(0)
	fmt.Sscan(fake.URL()[strings.LastIndex(fake.URL(), ":")+1:], &port)
	chat := map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "m", "server.address": "127.0.0.1", "server.port": port}
	with := func(base map[string]any, kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tokenBounds := []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	for _, tc := range []struct {
		tokenType string
		sum       float64
		buckets   map[int]uint64 // bucket index → count; the rest are 0
	}{
		// The whole prompt, cache reads included: 120 in (64, 256], 300 in (256, 1024].
		{"input", 420, map[int]uint64{4: 1, 5: 1}},
		// 30 in (16, 64], 5 in (4, 16].
		{"output", 35, map[int]uint64{3: 1, 2: 1}},
	} {
		p := onePoint(t, ps, telemetry.MetricTokenUsage, with(chat, "gen_ai.token.type", tc.tokenType))
		want := make([]uint64, len(tokenBounds)+1)
		for i, n := range tc.buckets {
			want[i] = n
		}
		if p.Unit != "{token}" || p.Count != 2 || p.Sum != tc.sum || !slices.Equal(p.Buckets, want) || !slices.Equal(p.Bounds, tokenBounds) {
			t.Errorf("%s tokens: unit %q count %d sum %g buckets %v bounds %v, want {token} 2 %g %v %v",
				tc.tokenType, p.Unit, p.Count, p.Sum, p.Buckets, p.Bounds, tc.sum, want, tokenBounds)
		}
		if _, ok := p.Attrs["error.type"]; ok {
			t.Errorf("token usage with error.type: %v", p.Attrs)
		}
	}
	durBounds := []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	var ok metricPoint // the chat series without error.type
	for _, p := range pointsOf(ps, telemetry.MetricOperationDuration, chat) {
		if _, failed := p.Attrs["error.type"]; !failed {
			ok = p
		}
	}
	failed := onePoint(t, ps, telemetry.MetricOperationDuration, with(chat, "error.type", "provider_error"))
	run := onePoint(t, ps, telemetry.MetricOperationDuration, map[string]any{"gen_ai.operation.name": "invoke_agent",
		"gen_ai.provider.name": "openai", "gen_ai.request.model": "m"})
	for _, c := range []struct {
		name  string
		p     metricPoint
		count uint64
	}{{"chat", ok, 2}, {"failed chat", failed, 1}, {"run", run, 1}} {
		var n uint64
		for _, b := range c.p.Buckets {
			n += b
		}
		if c.p.Unit != "s" || c.p.Count != c.count || n != c.count || c.p.Sum <= 0 || c.p.Min > c.p.Max || !slices.Equal(c.p.Bounds, durBounds) {
			t.Errorf("%s duration: %+v, want %d points in s over the conventions' buckets", c.name, c.p, c.count)
		}
		if c.p.Temporality != 2 || c.p.Start == 0 || c.p.Time < c.p.Start || c.p.Resource["service.name"] != "ci-job" || c.p.Scope != telemetry.ScopeName {
			t.Errorf("%s duration: temporality %d start %d time %d resource %v scope %q", c.name, c.p.Temporality, c.p.Start, c.p.Time, c.p.Resource, c.p.Scope)
		}
	}
	if run.Sum < ok.Sum {
		t.Errorf("the run (%gs) took less than its model calls (%gs)", run.Sum, ok.Sum)
	}
	call := onePoint(t, ps, telemetry.MetricMCPDuration, map[string]any{"mcp.method.name": "tools/call",
		"gen_ai.tool.name": "word_count", "gen_ai.operation.name": "execute_tool", "network.transport": "pipe",
		"mcp.protocol.version": "2025-03-26"})
	refused := onePoint(t, ps, telemetry.MetricMCPDuration, map[string]any{"mcp.method.name": "server/discover",
		"rpc.response.status_code": "-32601", "error.type": "_OTHER"})
	for _, p := range []metricPoint{call, refused, onePoint(t, ps, telemetry.MetricMCPDuration, map[string]any{"mcp.method.name": "initialize"})} {
		if p.Unit != "s" || p.Count != 1 || len(p.Bounds) != 14 || p.Bounds[13] != 300 {
			t.Errorf("mcp duration %v: %+v", p.Attrs, p)
		}
		if _, ok := p.Attrs["gen_ai.provider.name"]; ok {
			t.Errorf("mcp duration with a provider: %v", p.Attrs)
		}
	}
}

// OTEL_METRICS_EXPORTER=none: spans go, no metric does; both off is no
// Tracer at all.
func TestMetricsExporterNone(t *testing.T) {
	t.Parallel()
	col := startCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + col.addr, "OTEL_METRICS_EXPORTER": "none"}
	tr, warn := telemetry.Setup(telemetry.Options{LookupEnv: lookup(env)})
	if tr == nil || len(warn) > 0 {
		t.Fatalf("Setup: %v %v", tr, warn)
	}
	ctx, agent := tr.StartAgent(context.Background(), telemetry.AgentInfo{Model: "m", RunID: "r"})
	_, chat := tr.StartChat(ctx, telemetry.ChatInfo{Model: "m", Attempt: 1})
	chat.EndChat(telemetry.ChatResult{UsagePresent: true, InputTokens: 3, OutputTokens: 4}, nil)
	agent.EndAgent(telemetry.AgentResult{})
	if w := tr.Shutdown(context.Background()); len(w) > 0 {
		t.Fatal(w)
	}
	col.waitSpans(t, 2)
	col.mu.Lock()
	n := len(col.exports)
	col.mu.Unlock()
	if n != 0 {
		t.Errorf("%d metrics exports with OTEL_METRICS_EXPORTER=none", n)
	}
	env["OTEL_TRACES_EXPORTER"] = "none"
	if tr, _ := telemetry.Setup(telemetry.Options{LookupEnv: lookup(env)}); tr != nil {
		t.Error("a Tracer with both signals off")
	}
}

// A long run's metrics reach the collector while it lasts, every
// OTEL_METRIC_EXPORT_INTERVAL: cumulative (the default) exports repeat
// the totals from the start, delta ones hold what came since the last.
// Traces are off here: the metrics do not need them, and nothing
// propagates without a trace.
func TestMetricsPeriodic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		temporality string
		want        int    // OTLP AggregationTemporality
		last        uint64 // the last export's count after 2 calls
	}{{"", 2, 2}, {"delta", 1, 1}} {
		t.Run("temporality="+tc.temporality, func(t *testing.T) {
			t.Parallel()
			col := startCollector(t)
			tr, warn := telemetry.Setup(telemetry.Options{LookupEnv: lookup(map[string]string{
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + col.addr + "/v1/metrics", "OTEL_METRIC_EXPORT_INTERVAL": "20",
				"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": tc.temporality, "TRACEPARENT": "00-" + jobTrace + "-" + jobSpan + "-01"})})
			if tr == nil || len(warn) > 0 {
				t.Fatalf("Setup: %v %v", tr, warn)
			}
			ctx, agent := tr.StartAgent(context.Background(), telemetry.AgentInfo{Model: "m", RunID: "r"})
			if env := telemetry.Environ(ctx, nil); len(env) != 0 || tr.ModelHeaders("http://127.0.0.1") {
				t.Errorf("metrics alone propagate a trace: %v", env)
			}
			if a, b := agent.IDs(); a != "" || b != "" {
				t.Errorf("metrics alone give the run trace ids %q %q", a, b)
			}
			_, chat := tr.StartChat(ctx, telemetry.ChatInfo{Model: "m", Attempt: 1})
			chat.EndChat(telemetry.ChatResult{}, nil)
			first := col.waitExports(t, 1)[0] // while the run lasts
			if p := onePoint(t, first, telemetry.MetricOperationDuration, map[string]any{"gen_ai.operation.name": "chat"}); p.Count != 1 || p.Temporality != tc.want {
				t.Errorf("first export: count %d temporality %d, want 1 %d", p.Count, p.Temporality, tc.want)
			}
			_, chat = tr.StartChat(ctx, telemetry.ChatInfo{Model: "m", Attempt: 1})
			chat.EndChat(telemetry.ChatResult{}, errors.New("refused"))
			agent.EndAgent(telemetry.AgentResult{})
			if w := tr.Shutdown(context.Background()); len(w) > 0 {
				t.Fatal(w)
			}
			exports := col.waitExports(t, 2)
			last := exports[len(exports)-1]
			ok := pointsOf(last, telemetry.MetricOperationDuration, map[string]any{"gen_ai.operation.name": "chat"})
			var n uint64
			for _, p := range ok {
				n += p.Count
			}
			if n != tc.last {
				t.Errorf("last export holds %d chat durations, want %d:\n%s", n, tc.last, dumpPoints(last))
			}
			col.mu.Lock()
			spans := len(col.spans)
			col.mu.Unlock()
			if spans != 0 {
				t.Errorf("%d spans exported with only metrics asked for", spans)
			}
		})
	}
}

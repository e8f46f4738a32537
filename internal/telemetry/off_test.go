package telemetry_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/odek-run/odek/internal/telemetry"
)

var errFailed = errors.New("failed")

// offPath is everything an instrumented run does per iteration, with
// tracing off: a trim, a chat span with usage (its metrics), two tool
// spans with a hook and an approval wait each, an MCP span, a child's
// environment, request headers, MCP _meta.
func offPath(tr *telemetry.Tracer, ctx context.Context, env []string, h http.Header, meta map[string]any) {
	_, trim := tr.StartTrim(ctx, telemetry.TrimInfo{Mode: "proactive"})
	trim.EndTrim(1, 0, nil)
	cctx, chat := tr.StartChat(ctx, telemetry.ChatInfo{Model: "m", Endpoint: "http://127.0.0.1/v1", Attempt: 1})
	chat.EndChat(telemetry.ChatResult{FinishReason: "tool_calls", UsagePresent: true, InputTokens: 10, OutputTokens: 2}, nil)
	for range 2 {
		tctx, tool := tr.StartTool(cctx, telemetry.ToolInfo{Name: "shell", CallID: "c1"})
		hctx, hook := tr.StartHook(tctx, telemetry.HookInfo{Event: "PreToolUse", Type: "command", Origin: "operator"})
		telemetry.Environ(hctx, env)
		hook.EndHook(telemetry.HookResult{Decision: "none", HasExit: true})
		_, wait := tr.StartApproval(tctx, "shell", "code_execution")
		wait.EndApproval("once", nil)
		mctx, mcp := tr.StartMCP(tctx, telemetry.MCPInfo{Method: "tools/call", Target: "t"})
		telemetry.InjectMeta(mctx, meta)
		telemetry.InjectHeaders(mctx, h)
		mcp.EndMCP(0, nil)
		telemetry.Environ(tctx, env)
		tool.EndTool("result", errFailed)
	}
}

// Off is free: Setup without configuration returns nil, and the nil
// tracer allocates nothing on the whole per-iteration path.
func TestOffAllocatesNothing(t *testing.T) {
	tr, warn := telemetry.Setup(telemetry.Options{LookupEnv: lookup(map[string]string{"TRACEPARENT": "garbage"})})
	if tr != nil || len(warn) > 0 {
		t.Fatalf("Setup without configuration: %v %v", tr, warn)
	}
	ctx, env, h, meta := context.Background(), []string{"A=b"}, http.Header{}, map[string]any{}
	if n := testing.AllocsPerRun(100, func() { offPath(tr, ctx, env, h, meta) }); n != 0 {
		t.Errorf("%v allocations per iteration with tracing off, want 0", n)
	}
	if len(h) != 0 || len(meta) != 0 {
		t.Errorf("off injected: headers %v meta %v", h, meta)
	}
}

func BenchmarkIterationOff(b *testing.B) {
	ctx, env, h, meta := context.Background(), []string{"A=b"}, http.Header{}, map[string]any{}
	b.ReportAllocs()
	for b.Loop() {
		offPath(nil, ctx, env, h, meta)
	}
}

// BenchmarkIterationOn is the same path traced, spans queued to a
// collector that accepts everything (export runs in the background),
// with metrics recorded and without: the difference is their cost.
func BenchmarkIterationOn(b *testing.B) {
	srv := acceptAll(b)
	for _, metrics := range []string{"otlp", "none"} {
		b.Run("metrics="+metrics, func(b *testing.B) {
			tr, _ := telemetry.Setup(telemetry.Options{LookupEnv: lookup(map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": srv, "OTEL_METRICS_EXPORTER": metrics})})
			defer tr.Shutdown(context.Background())
			ctx, agent := tr.StartAgent(context.Background(), telemetry.AgentInfo{Model: "m", RunID: "r"})
			defer agent.EndAgent(telemetry.AgentResult{})
			env := []string{"A=b"}
			b.ReportAllocs()
			for b.Loop() {
				offPath(tr, ctx, env, http.Header{}, map[string]any{})
			}
		})
	}
}

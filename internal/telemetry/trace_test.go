package telemetry_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/telemetry"
)

// The CI job's span, as its TRACEPARENT names it.
const (
	jobTrace  = "0af7651916cd43dd8448eb211c80319c"
	jobSpan   = "b7ad6b7169203331"
	secretArg = "sk-proj-SECRETSECRETSECRET"
)

// probe is a tool that reports the environment a child process would get.
type probe struct{}

func (probe) Name() string            { return "probe" }
func (probe) Description() string     { return "reports TRACEPARENT" }
func (probe) Schema() json.RawMessage { return nil }
func (probe) Call(ctx context.Context, _ json.RawMessage) (string, error) {
	return strings.Join(telemetry.Environ(ctx, []string{"TRACEPARENT=stale", "HOME=/h"}), "\n"), nil
}

// scenario is one traced run: an MCP server's discovery, a model call
// that fails once and is retried, an MCP tool call and a local one, then
// the answer: 10 spans.
type scenario struct {
	spans   []span
	llmReqs []fakellm.RecordedRequest
	mcpWire string
	probe   string
}

func runScenario(t *testing.T, content bool) scenario {
	t.Helper()
	col := startCollector(t)
	fake, err := fakellm.Start(&fakellm.Script{ChatOnly: true, Model: "m-2026-12-01", Turns: []fakellm.Turn{
		{Fault: "server_error"},
		{ToolCalls: []fakellm.ScriptCall{
			{ID: "call_wc", Name: "wc__word_count", Arguments: json.RawMessage(`{"text":"a b ` + secretArg + `"}`)},
			{ID: "call_probe", Name: "probe", Arguments: json.RawMessage(`{}`)},
		}},
		{Content: "done"},
	}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + col.addr, "OTEL_BSP_SCHEDULE_DELAY": "20",
		"OTEL_SERVICE_NAME": "ci-job", "TRACEPARENT": "00-" + jobTrace + "-" + jobSpan + "-01",
	}
	settings := telemetry.Settings{}
	if content {
		env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
		settings.CaptureContent = true
	}
	tr, warn := telemetry.Setup(telemetry.Options{LookupEnv: lookup(env), Settings: settings, Version: "test",
		Redact: func(s string) string { return strings.ReplaceAll(s, secretArg, "[REDACTED]") }})
	if tr == nil || len(warn) > 0 {
		t.Fatalf("Setup: %v %v", tr, warn)
	}
	ctx, agent := tr.StartAgent(context.Background(), telemetry.AgentInfo{Model: "m", RunID: "run1", SessionID: "sess1"})

	wire := filepath.Join(t.TempDir(), "wire.jsonl")
	mc, err := mcpclient.Connect(ctx, "wc", mcpclient.ServerConfig{Command: "/bin/sh",
		Args: []string{"-c", "tee " + wire + " | " + wordcountBin}}, mcpclient.Options{Telemetry: tr})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	defs, err := mc.Discover(ctx)
	if err != nil || len(defs) != 1 {
		t.Fatalf("Discover: %v %v", defs, err)
	}
	reg, err := loop.NewRegistry(mcpclient.NewToolAdapter(mc, defs[0]), probe{})
	if err != nil {
		t.Fatal(err)
	}
	client := llm.New(llm.Options{BaseURL: fake.URL(), Stream: true, Telemetry: tr,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	res, err := loop.Run(ctx, loop.Options{Model: client, ModelName: "m", Tools: reg, Telemetry: tr}, "count the words")
	if err != nil || res.Answer != "done" {
		t.Fatalf("run: %v %v", res, err)
	}
	agent.EndAgent(telemetry.AgentResult{Termination: "completed", InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens})
	if w := tr.Shutdown(context.Background()); len(w) > 0 {
		t.Fatalf("Shutdown warnings: %v", w)
	}
	out := scenario{spans: col.waitSpans(t, 10), llmReqs: fake.Requests()}
	b, _ := os.ReadFile(wire)
	out.mcpWire = string(b)
	for _, m := range res.History {
		if m.Role == llm.RoleTool && m.Name == "probe" {
			out.probe = m.Content
		}
	}
	return out
}

func TestOneTraceSpanBySpan(t *testing.T) {
	t.Parallel()
	sc := runScenario(t, false)
	one := func(name string) span {
		t.Helper()
		got := byName(sc.spans, name)
		if len(got) != 1 {
			t.Fatalf("%d spans named %q, want 1 (all: %+v)", len(got), name, sc.spans)
		}
		return got[0]
	}
	agent := one("invoke_agent odek")
	wcTool, probeTool := one("execute_tool wc__word_count"), one("execute_tool probe")
	mcpCall := one("tools/call word_count")
	chats := byName(sc.spans, "chat m")
	if len(chats) != 3 {
		t.Fatalf("%d chat spans, want 3 (a failed attempt, its retry, the answer)", len(chats))
	}
	for _, s := range sc.spans {
		if s.TraceID != jobTrace {
			t.Errorf("span %q is in trace %s, want the job's %s", s.Name, s.TraceID, jobTrace)
		}
		if s.Resource["service.name"] != "ci-job" || s.Scope != telemetry.ScopeName {
			t.Errorf("span %q: resource %v scope %q", s.Name, s.Resource, s.Scope)
		}
		for k := range s.Attrs {
			if strings.HasPrefix(k, "gen_ai.input") || strings.HasPrefix(k, "gen_ai.output") ||
				k == telemetry.AttrToolArguments || k == telemetry.AttrToolResult {
				t.Errorf("span %q carries content %s without the opt-in", s.Name, k)
			}
		}
	}
	parents := []struct {
		child, parent span
	}{
		{wcTool, agent}, {probeTool, agent}, {mcpCall, wcTool},
		{one("initialize"), agent}, {one("tools/list"), agent}, {one("server/discover"), agent},
		{chats[0], agent}, {chats[1], agent}, {chats[2], agent},
	}
	if agent.Parent != jobSpan {
		t.Errorf("invoke_agent's parent is %q, want TRACEPARENT's %s", agent.Parent, jobSpan)
	}
	for _, p := range parents {
		if p.child.Parent != p.parent.SpanID {
			t.Errorf("%q's parent is %s, want %q (%s)", p.child.Name, p.child.Parent, p.parent.Name, p.parent.SpanID)
		}
	}
	want := map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai",
		"gen_ai.agent.name": "odek", "gen_ai.request.model": "m", "gen_ai.conversation.id": "sess1",
		"odek.run.id": "run1", "odek.termination": "completed"}
	checkAttrs(t, agent, want)
	checkAttrs(t, chats[0], map[string]any{"gen_ai.operation.name": "chat", "odek.llm.attempt": int64(1),
		"error.type": "provider_error", "server.address": "127.0.0.1"})
	checkAttrs(t, chats[1], map[string]any{"odek.llm.attempt": int64(2), "gen_ai.response.finish_reasons": []any{"tool_calls"},
		"gen_ai.request.model": "m", "gen_ai.response.model": "m-2026-12-01"})
	checkAttrs(t, chats[2], map[string]any{"odek.llm.attempt": int64(1), "gen_ai.response.finish_reasons": []any{"stop"},
		"gen_ai.response.model": "m-2026-12-01"})
	if chats[0].Status != 2 || chats[0].Message != "provider_error" || chats[1].Status == 2 {
		t.Errorf("chat statuses %d %q, %d: want an error saying only its class, then none", chats[0].Status, chats[0].Message, chats[1].Status)
	}
	for _, c := range chats[1:] {
		if _, ok := c.Attrs["gen_ai.usage.input_tokens"]; !ok {
			t.Errorf("chat span without usage: %v", c.Attrs)
		}
	}
	checkAttrs(t, wcTool, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "wc__word_count",
		"gen_ai.tool.call.id": "call_wc", "gen_ai.tool.type": "extension"})
	checkAttrs(t, probeTool, map[string]any{"gen_ai.tool.call.id": "call_probe", "gen_ai.tool.type": "function"})
	checkAttrs(t, mcpCall, map[string]any{"mcp.method.name": "tools/call", "mcp.protocol.version": "2025-03-26",
		"gen_ai.tool.name": "word_count", "network.transport": "pipe", "odek.mcp.server": "wc"})
	discover := one("server/discover") // the era probe a legacy server refuses
	checkAttrs(t, discover, map[string]any{"rpc.response.status_code": "-32601", "error.type": "_OTHER"})
	if mcpCall.Kind != 3 || chats[0].Kind != 3 || agent.Kind != 1 {
		t.Errorf("kinds: mcp %d chat %d agent %d, want client, client, internal", mcpCall.Kind, chats[0].Kind, agent.Kind)
	}

	// Across the boundaries: the model request's header, the MCP
	// request's _meta, a child's environment.
	for i, r := range sc.llmReqs {
		if tp := r.Header.Get("traceparent"); tp != "00-"+jobTrace+"-"+chats[i].SpanID+"-01" {
			t.Errorf("model request %d: traceparent %q, want its chat span %s", i, tp, chats[i].SpanID)
		}
	}
	if !strings.Contains(sc.mcpWire, `"traceparent":"00-`+jobTrace+`-`+mcpCall.SpanID+`-01"`) {
		t.Errorf("tools/call's params._meta lacks its span's traceparent:\n%s", sc.mcpWire)
	}
	if want := "TRACEPARENT=00-" + jobTrace + "-" + probeTool.SpanID + "-01"; !strings.Contains(sc.probe, want) || strings.Contains(sc.probe, "stale") {
		t.Errorf("child environment %q, want %s and no stale value", sc.probe, want)
	}
}

func TestContentOnlyWhenOptedInAndRedacted(t *testing.T) {
	t.Parallel()
	sc := runScenario(t, true)
	wc := byName(sc.spans, "execute_tool wc__word_count")[0]
	args, _ := wc.Attrs[telemetry.AttrToolArguments].(string)
	if !strings.Contains(args, "[REDACTED]") || strings.Contains(args, secretArg) {
		t.Errorf("captured arguments %q: want them, redacted", args)
	}
	if _, ok := wc.Attrs[telemetry.AttrToolResult]; !ok {
		t.Errorf("no captured result: %v", wc.Attrs)
	}
	chat := byName(sc.spans, "chat m")[2]
	in, _ := chat.Attrs[telemetry.AttrInputMessages].(string)
	if !strings.Contains(in, `"content":"count the words"`) || strings.Contains(in, secretArg) {
		t.Errorf("input messages %q: want the task, redacted", in)
	}
	if out, _ := chat.Attrs[telemetry.AttrOutputMessages].(string); !strings.Contains(out, `"done"`) {
		t.Errorf("output messages %q", out)
	}
}

func checkAttrs(t *testing.T, s span, want map[string]any) {
	t.Helper()
	for k, v := range want {
		got, _ := json.Marshal(s.Attrs[k])
		exp, _ := json.Marshal(v)
		if string(got) != string(exp) {
			t.Errorf("span %q: %s = %s, want %s", s.Name, k, got, exp)
		}
	}
}

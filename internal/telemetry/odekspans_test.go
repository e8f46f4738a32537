package telemetry_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/telemetry"
)

// bigTool returns 8000 bytes: four calls overflow a 6000-token window.
type bigTool struct{}

func (bigTool) Name() string            { return "big" }
func (bigTool) Description() string     { return "returns a lot" }
func (bigTool) Schema() json.RawMessage { return nil }
func (bigTool) Call(context.Context, json.RawMessage) (string, error) {
	return strings.Repeat("z", 8000), nil
}

// sideCallModel calls big four times, then answers; a request without
// tools (the compaction's side call) is a chat span of its own, as
// llm.Client makes one, under the context it is given.
type sideCallModel struct {
	tr    *telemetry.Tracer
	mu    sync.Mutex
	calls int
}

func (m *sideCallModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if len(req.Tools) == 0 {
		_, chat := m.tr.StartChat(ctx, telemetry.ChatInfo{Model: "digest", Attempt: 1})
		chat.EndChat(telemetry.ChatResult{}, nil)
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "digest"}}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.calls > 4 {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "done"}, FinishReason: "stop"}, nil
	}
	id := "call_" + string(rune('0'+m.calls))
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Type: "function",
		Function: llm.FunctionCall{Name: "big", Arguments: "{}"}}}}, FinishReason: "tool_calls"}, nil
}

// A hook's run nests under the tool call it fires for, and its command
// gets the hook span's TRACEPARENT; a context trim, with the compaction's
// model call under it, nests under the run.
func TestHookAndTrimSpans(t *testing.T) {
	t.Parallel()
	col := startCollector(t)
	dir := t.TempDir()
	tr, warn := telemetry.Setup(telemetry.Options{LookupEnv: lookup(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + col.addr, "OTEL_METRICS_EXPORTER": "none",
		"TRACEPARENT": "00-" + jobTrace + "-" + jobSpan + "-01"})})
	if tr == nil || len(warn) > 0 {
		t.Fatalf("Setup: %v %v", tr, warn)
	}
	cfg, _, err := hooks.Parse(json.RawMessage(`{"PreToolUse": [{"matcher": "big", "hooks": [
		{"type": "command", "command": "printenv TRACEPARENT >> tp.txt"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	runner := hooks.New(hooks.Options{Operator: cfg, Dir: dir, OperatorEnv: []string{"PATH=" + os.Getenv("PATH")}, Telemetry: tr})
	defer runner.Close()
	ctx, agent := tr.StartAgent(context.Background(), telemetry.AgentInfo{Model: "m", RunID: "r"})
	reg, err := loop.NewRegistry(bigTool{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := loop.Run(ctx, loop.Options{Model: &sideCallModel{tr: tr}, ModelName: "m", Tools: reg, Telemetry: tr,
		Hooks: runner, ContextWindow: 6000, Compaction: true}, "the task")
	if err != nil || res.Answer != "done" {
		t.Fatalf("run: %v %v", res, err)
	}
	agent.EndAgent(telemetry.AgentResult{Termination: "completed"})
	if w := tr.Shutdown(context.Background()); len(w) > 0 {
		t.Fatal(w)
	}
	spans := col.waitSpans(t, 1+4+4) // the run, 4 tool calls, their 4 hooks, and trims
	byID := map[string]span{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	hookSpans := byName(spans, "execute_hook PreToolUse")
	if len(hookSpans) != 4 {
		t.Fatalf("%d hook spans, want one per call:\n%+v", len(hookSpans), spans)
	}
	tp, err := os.ReadFile(filepath.Join(dir, "tp.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hookSpans {
		if p := byID[h.Parent]; p.Name != "execute_tool big" {
			t.Errorf("hook span's parent is %q, want its call's execute_tool big", p.Name)
		}
		checkAttrs(t, h, map[string]any{"odek.hook.event": "PreToolUse", "odek.hook.type": "command",
			"odek.hook.origin": "operator", "odek.hook.decision": "none", "process.exit.code": int64(0)})
		if want := "00-" + jobTrace + "-" + h.SpanID + "-01"; !strings.Contains(string(tp), want) {
			t.Errorf("hook %d: its command's TRACEPARENTs %q lack its span's %s", i, tp, want)
		}
	}
	trims := byName(spans, "trim_context")
	if len(trims) == 0 {
		t.Fatalf("no trim_context span:\n%+v", spans)
	}
	agentSpan := byName(spans, "invoke_agent odek")[0]
	compacted := false
	for _, tr := range trims {
		if tr.Parent != agentSpan.SpanID || tr.Attrs["odek.trim.mode"] != "proactive" {
			t.Errorf("trim span %v under %q, want proactive under the run", tr.Attrs, byID[tr.Parent].Name)
		}
		d, _ := tr.Attrs["odek.trim.dropped_groups"].(int64)
		n, _ := tr.Attrs["odek.trim.truncated_results"].(int64)
		if d+n == 0 {
			t.Errorf("a trim span that removed nothing: %v", tr.Attrs)
		}
		compacted = compacted || d > 0
	}
	digests := byName(spans, "chat digest")
	if !compacted || len(digests) == 0 {
		t.Errorf("dropped groups %v, %d compaction calls traced: want both", compacted, len(digests))
	}
	for _, d := range digests {
		if byID[d.Parent].Name != "trim_context" {
			t.Errorf("compaction's chat span under %q, want trim_context", byID[d.Parent].Name)
		}
	}
}

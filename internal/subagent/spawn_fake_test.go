package subagent

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// fakeRunner starts no process: its child prints stdout and exits, and the
// kills the parent sends are counted.
type fakeRunner struct {
	stdout string
	kills  atomic.Int32
	mu     sync.Mutex
	env    []string // the last child's environment
}

func (r *fakeRunner) Start(_ context.Context, s Spec) (Process, error) {
	r.mu.Lock()
	r.env = s.Env
	r.mu.Unlock()
	return &fakeProc{r: r, out: strings.NewReader(r.stdout)}, nil
}

type fakeProc struct {
	r   *fakeRunner
	out io.Reader
}

func (p *fakeProc) PID() int           { return 0 }
func (p *fakeProc) Stdout() io.Reader  { return p.out }
func (p *fakeProc) Kill()              { p.r.kills.Add(1) }
func (p *fakeProc) Wait() error        { return nil }
func (p *fakeProc) StderrTail() string { return "" }

func fakeTool(t *testing.T, stdout string, mutate func(*Options)) (*Tool, *fakeRunner, *recordSink, func() []string) {
	t.Helper()
	fr := &fakeRunner{stdout: stdout}
	tool, sink, flush := newTestTool(t, "", func(o *Options) {
		o.Runner = fr
		if mutate != nil {
			mutate(o)
		}
	})
	return tool, fr, sink, flush
}

// TestSpawnKillsOnlyAfterAReadError: a child whose output broke a cap is
// killed (its blocked writes would otherwise keep it alive until its
// deadline); a child that ended its stream normally is not.
func TestSpawnKillsOnlyAfterAReadError(t *testing.T) {
	tool, fr, _, _ := fakeTool(t, strings.Repeat("{}\n", 100_001), nil)
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"flood"}]}`))
	if !strings.Contains(out, "more than 100000 lines") || fr.kills.Load() != 1 {
		t.Fatalf("flood: %d kills, want 1:\n%s", fr.kills.Load(), out)
	}
	tool, fr, _, _ = fakeTool(t, `{"type":"result","result":{"status":"success","summary":"ok"}}`+"\n", nil)
	out = unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"ok"}]}`))
	if !strings.Contains(out, "status: success") || fr.kills.Load() != 0 {
		t.Fatalf("clean end: %d kills, want 0:\n%s", fr.kills.Load(), out)
	}
}

// TestSpawnRelaysEventsAndPassesTheRest: a child's event line reaches the
// parent's sinks whole, inside a subagent_event of the parent's run with
// the task's id (DECISION 28), tied to the parent and the task; nothing of
// the child's is a top-level event. Its other telemetry lines go to OnLine,
// and no event line does.
func TestSpawnRelaysEventsAndPassesTheRest(t *testing.T) {
	child := strings.Repeat("a", 32)
	stdout := `{"type":"event","event":{"schema":"odek.event/v1","type":"tool_started","run_id":"` + child + `","timestamp":"2026-01-01T00:00:00Z"}}
{"type":"subagent_started","pid":7}
{"type":"result","result":{"status":"success","summary":"ok"}}
`
	var mu sync.Mutex
	var lines []string
	tool, _, sink, flush := fakeTool(t, stdout, func(o *Options) {
		o.ForwardEvents = true
		o.OnLine = func(i int, l *wire.Line) {
			mu.Lock()
			lines = append(lines, fmt.Sprintf("%d %s %d", i, l.Type, l.PID))
			mu.Unlock()
		}
	})
	call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`)
	flush()
	var taskID string
	var relayed []map[string]any
	for _, ev := range sink.evs {
		if ev.RunID != tool.o.Events.RunID() {
			t.Fatalf("a top-level event of another run: %+v", ev)
		}
		switch ev.Type {
		case events.SubagentSpawned:
			taskID, _ = ev.Data["task_id"].(string)
		case events.SubagentEvent:
			if inner, _ := ev.Data["event"].(map[string]any); ev.Data["task_id"] == taskID && inner != nil {
				relayed = append(relayed, inner)
			}
		}
	}
	if len(relayed) != 1 || relayed[0]["type"] != "tool_started" || relayed[0]["run_id"] != child ||
		relayed[0]["parent_run_id"] != tool.o.Events.RunID() || relayed[0]["task_id"] != taskID || taskID == "" {
		t.Fatalf("relayed %+v, want one tool_started of run %s, parent %s, task %q", relayed, child, tool.o.Events.RunID(), taskID)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 1 || lines[0] != "0 subagent_started 7" {
		t.Fatalf("OnLine got %q, want the one subagent_started line", lines)
	}
}

// TestUnaskedRelayIsDropped: a child relays events only when the parent
// asked for them (ForwardEvents); event lines it sends anyway reach neither
// the parent's sinks nor OnLine.
func TestUnaskedRelayIsDropped(t *testing.T) {
	child := strings.Repeat("b", 32)
	stdout := `{"type":"event","event":{"schema":"odek.event/v1","type":"tool_started","run_id":"` + child + `","timestamp":"2026-01-01T00:00:00Z"}}
{"type":"result","result":{"status":"success","summary":"ok"}}
`
	var online atomic.Int32
	tool, _, sink, flush := fakeTool(t, stdout, func(o *Options) {
		o.OnLine = func(int, *wire.Line) { online.Add(1) }
	})
	call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`)
	flush()
	for _, ev := range sink.evs {
		if ev.RunID == child || ev.Type == events.SubagentEvent {
			t.Fatalf("an unasked relay reached the sink: %+v", ev)
		}
	}
	if n := online.Load(); n != 0 {
		t.Fatalf("OnLine got %d lines, want none", n)
	}
}

// TestCompletedCarriesWhatTheChildReported: a duration the child reported
// is kept (not replaced by the parent's clock), and counts it did not report
// are left out of subagent_completed, not given as 0.
func TestCompletedCarriesWhatTheChildReported(t *testing.T) {
	tool, _, sink, flush := fakeTool(t, `{"type":"result","result":{"status":"success","summary":"ok","duration_seconds":42.5}}`+"\n", nil)
	call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`)
	flush()
	var done []map[string]any
	for _, ev := range sink.evs {
		if ev.Type == events.SubagentCompleted {
			done = append(done, ev.Data)
		}
	}
	if len(done) != 1 {
		t.Fatalf("%d completed events, want 1", len(done))
	}
	_, iters := done[0]["iterations"]
	_, tokens := done[0]["tokens_used"]
	if fmt.Sprint(done[0]["duration_seconds"]) != "42.5" || iters || tokens {
		t.Fatalf("completed: %v, want duration_seconds 42.5 and no iterations or tokens_used", done[0])
	}
}

// TestChildGetsTheCallsTraceContext: a traced delegate_tasks call hands its
// span's context to the child in TRACEPARENT, replacing the one odek got,
// so the child's run nests under the call (docs/TELEMETRY.md).
func TestChildGetsTheCallsTraceContext(t *testing.T) {
	tool, fr, _, _ := fakeTool(t, `{"type":"result","result":{"status":"success","summary":"ok"}}`+"\n", func(o *Options) {
		o.Env = append(o.Env, "TRACEPARENT=00-11111111111111111111111111111111-1111111111111111-01")
	})
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	ctx := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	unwrap(t, call(t, tool, ctx, `{"tasks":[{"goal":"ok"}]}`))
	fr.mu.Lock()
	env := strings.Join(fr.env, "\n")
	fr.mu.Unlock()
	if !strings.Contains(env, "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01") || strings.Contains(env, "1111") {
		t.Errorf("child environment:\n%s", env)
	}
}

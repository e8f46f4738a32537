package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// childScript stands in for `odek subagent`: MODE picks its behaviour.
const childScript = `#!/bin/sh
task="$3"
case "$MODE" in
result)
  echo '{"type":"subagent_started","pid":1}'
  echo '{"type":"result","result":{"status":"success","summary":"ok","tokens_used":30,"iterations":2,"usage":{"input_tokens":20,"output_tokens":10,"tool_calls":2},"denials":[{"tool":"shell","class":"install","reason":"no"}]}}' ;;
artifact)
  root=$(grep -o '"artifact_root":"[^"]*"' "$task" | cut -d'"' -f4)
  g=$(grep -o '"goal":"[^"]*"' "$task" | cut -d'"' -f4)
  printf '%s' "$g" > "$root/out.txt"
  sha=$(sha256sum "$root/out.txt" | cut -d' ' -f1)
  printf '{"type":"result","result":{"status":"success","summary":"ok","artifacts":[{"schema":"odek.artifact-ref/v1","id":"out","uri":"file://%s/out.txt","media_type":"text/plain","sha256":"%s","size_bytes":%d}]}}\n' "$root" "$sha" "${#g}" ;;
silent-ok)
  printf '{"type":"result","result":{"status":"success","summary":"ok"}}\n' ;;
events)
  if grep -q '"events":true' "$task"; then e=yes; else e=no; fi
  printf '{"type":"result","result":{"status":"success","summary":"events=%s"}}\n' "$e" ;;
flood) while :; do echo "{}"; done ;;
hang) sleep 300 & sleep 300 ;;
crash) echo "fatal: boom" >&2; exit 7 ;;
silent) exit 0 ;;
budget)
  b=$(grep -o '"budget":{[^}]*}' "$task" | tr '"' "'")
  printf '{"type":"result","result":{"status":"success","summary":"%s","tokens_used":30,"cost_usd":0.25,"usage":{"input_tokens":20,"output_tokens":10,"tool_calls":2}}}\n' "$b" ;;
trust)
  p=$(grep -o '"parent_trust":"[a-z]*"' "$task" | tr -d '"')
  l=$(grep -o '"trust_level":"[a-z]*"' "$task" | tr -d '"')
  printf '{"type":"result","result":{"status":"success","summary":"%s %s"}}\n' "$p" "${l:-no trust_level}" ;;
esac
`

func writeScript(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "odek")
	if err := os.WriteFile(p, []byte(childScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// marked lists live processes whose environment carries mark.
func marked(t *testing.T, mark string) []string {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains(string(env), mark) {
			if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(stat), ") Z ") {
				pids = append(pids, e.Name())
			}
		}
	}
	return pids
}

type recordSink struct {
	mu  sync.Mutex
	evs []*events.Event
	on  func(*events.Event) // called with each event, if set
}

func (s *recordSink) Write(ev *events.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *ev
	s.evs = append(s.evs, &c)
	if s.on != nil {
		s.on(&c)
	}
	return nil
}

func (s *recordSink) types() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.evs {
		out = append(out, string(e.Type))
	}
	return out
}

func newTestTool(t *testing.T, mode string, mutate func(*Options)) (*Tool, *recordSink, func() []string) {
	t.Helper()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	mark := "ODEK_TEST_MARK=" + wire.NewTaskID()
	sink := &recordSink{}
	em := events.NewEmitter(events.Options{Sinks: []events.Sink{sink}})
	t.Cleanup(func() { _ = em.Close(context.Background()) })
	o := Options{
		Runner:        &LocalRunner{Path: writeScript(t), Grace: 200 * time.Millisecond},
		Semaphore:     NewSemaphore(3, time.Hour),
		Settings:      Settings{TimeoutSeconds: 60, MaxDepth: 2},
		Events:        em,
		ArtifactsHome: filepath.Join(t.TempDir(), "artifacts"),
		TempDir:       t.TempDir(),
		Workspace:     t.TempDir(),
		Env:           []string{"PATH=" + os.Getenv("PATH"), "MODE=" + mode, mark},
	}
	if mutate != nil {
		mutate(&o)
	}
	tool := NewTool(o)
	flush := func() []string { _ = em.Close(context.Background()); return sink.types() }
	t.Cleanup(func() {
		if left := marked(t, mark); len(left) > 0 {
			t.Errorf("orphan processes left: %v", left)
		}
	})
	return tool, sink, flush
}

func call(t *testing.T, tool *Tool, ctx context.Context, args string) string {
	t.Helper()
	out, err := tool.Call(ctx, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestToolResultAndEvents(t *testing.T) {
	tool, sink, flush := newTestTool(t, "result", nil)
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"one"},{"goal":"two"}]}`))
	if strings.Count(out, "status: success · 2 iterations") != 2 || !strings.Contains(out, "denials (1 of 1): shell/install — no") {
		t.Fatalf("results:\n%s", out)
	}
	// A run without a session files its children's artifact roots under
	// "unfiled", one directory per task.
	if roots, err := os.ReadDir(filepath.Join(tool.o.ArtifactsHome, unfiled)); err != nil || len(roots) != 2 {
		t.Fatalf("artifact roots under %s: %v (%v), want 2", unfiled, roots, err)
	}
	types := strings.Join(flush(), ",")
	for _, want := range []string{"subagent_spawned", "subagent_completed", "subagent_denied"} {
		if strings.Count(types, want) != 2 {
			t.Fatalf("want two %s in %s", want, types)
		}
	}
	for _, ev := range sink.evs {
		if ev.Type == events.SubagentSpawned && ev.Data["goal_sha256"] != wire.GoalHash("one") && ev.Data["goal_sha256"] != wire.GoalHash("two") {
			t.Fatalf("spawned: %v", ev.Data)
		}
		if b, _ := json.Marshal(ev); strings.Contains(string(b), `"one"`) || strings.Contains(string(b), `"two"`) {
			t.Fatalf("a goal reached the events: %s", b)
		}
		if ev.Type == events.SubagentSpawned && (fmt.Sprint(ev.Data["depth"]) != "1" || fmt.Sprint(ev.Data["timeout_seconds"]) != "60") {
			t.Fatalf("spawned at depth 0 with a 60 s timeout: %v", ev.Data)
		}
		// The child reported 2 iterations and 30 tokens and no artifacts: a
		// count it left out is left out, not 0.
		if ev.Type == events.SubagentCompleted {
			_, arts := ev.Data["artifact_count"]
			if fmt.Sprint(ev.Data["iterations"]) != "2" || fmt.Sprint(ev.Data["tokens_used"]) != "30" || arts {
				t.Fatalf("completed: %v", ev.Data)
			}
		}
	}
}

// TestToolAsksForEventsOnlyWhenForwarded: the task file asks the child
// for its events only when the parent forwards them and has an emitter.
func TestToolAsksForEventsOnlyWhenForwarded(t *testing.T) {
	for _, tc := range []struct {
		forward bool
		want    string
	}{{false, "events=no"}, {true, "events=yes"}} {
		tool, _, _ := newTestTool(t, "events", func(o *Options) { o.ForwardEvents = tc.forward })
		if out := call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`); !strings.Contains(out, tc.want) {
			t.Errorf("ForwardEvents %v: want %s in\n%s", tc.forward, tc.want, out)
		}
	}
	tool, _, _ := newTestTool(t, "events", func(o *Options) { o.ForwardEvents, o.Events = true, nil })
	if out := call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`); !strings.Contains(out, "events=no") {
		t.Errorf("ForwardEvents without an emitter: want events=no in\n%s", out)
	}
}

// TestToolArtifactsReachTheirTask: each child's artifact is delivered
// under its own task's result, inlined, with its task's number.
func TestToolArtifactsReachTheirTask(t *testing.T) {
	tool, _, _ := newTestTool(t, "artifact", nil)
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"first-body"},{"goal":"second-body"}]}`))
	i1, i2 := strings.Index(out, "\n    first-body\n"), strings.Index(out, "\n    second-body\n") // the inlined contents
	t1, t2 := strings.Index(out, ", task 1)"), strings.Index(out, ", task 2)")
	if i1 < 0 || i2 < 0 || t1 < 0 || t2 < 0 || !(t1 < i1 && i1 < t2 && t2 < i2) {
		t.Fatalf("each artifact under its own task, in order:\n%s", out)
	}
}

func TestToolFloodKillsTheChild(t *testing.T) {
	t.Parallel()
	// A deadline of 10 s, not 60: a change that left the flooding child
	// alive (blocked on its stdout) holds this test only that long, so
	// TestSpawnKillsOnlyAfterAReadError fails the suite before it times out.
	tool, _, _ := newTestTool(t, "flood", func(o *Options) { o.Settings.TimeoutSeconds, o.KillMargin = 10, 100*time.Millisecond })
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"flood"}]}`))
	if !strings.Contains(out, "error: child output flood: more than 100000 lines") {
		t.Fatalf("results:\n%s", out)
	}
}

func TestToolCrashAndSilence(t *testing.T) {
	tool, _, _ := newTestTool(t, "crash", nil)
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"c"}]}`))
	if !strings.Contains(out, "error: exit: exit status 7: fatal: boom") {
		t.Fatalf("crash:\n%s", out)
	}
	tool, _, _ = newTestTool(t, "silent", nil)
	out = unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"s"}]}`))
	if !strings.Contains(out, "status: no_result") {
		t.Fatalf("silent:\n%s", out)
	}
}

func TestToolCancelKillsTheGroup(t *testing.T) {
	tool, sink, _ := newTestTool(t, "hang", nil)
	ctx, cancel := context.WithCancel(context.Background())
	sink.mu.Lock()
	sink.on = func(ev *events.Event) { // cancel once the child runs, not before it started
		if ev.Type == events.SubagentSpawned {
			cancel()
		}
	}
	sink.mu.Unlock()
	out := unwrap(t, call(t, tool, ctx, `{"tasks":[{"goal":"h"}]}`))
	if !strings.Contains(out, "error: sub-agent cancelled") {
		t.Fatalf("results:\n%s", out)
	}
}

func TestToolTimeout(t *testing.T) {
	t.Parallel()
	tool, _, _ := newTestTool(t, "hang", func(o *Options) { o.Settings.TimeoutSeconds, o.KillMargin = 1, 100*time.Millisecond })
	start := time.Now()
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"h"}]}`))
	if !strings.Contains(out, "error: timeout after 1s") {
		t.Fatalf("results:\n%s", out)
	}
	if d := time.Since(start); d > 20*time.Second { // a hung child would be waited for forever
		t.Fatalf("took %v", d)
	}
}

func TestToolDepthLimit(t *testing.T) {
	tool, _, flush := newTestTool(t, "result", func(o *Options) { o.Depth = 2 })
	out := call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`)
	if out != depthLimitText(2, 2) {
		t.Fatalf("out = %s", out)
	}
	if types := flush(); len(types) != 0 {
		t.Fatalf("events at the depth limit: %v", types)
	}
}

func TestToolShareBudget(t *testing.T) {
	start := time.Now()
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxToolCalls: 10, MaxRuntimeSeconds: 600, MaxCostUSD: 1},
		Prices: budget.Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, Start: start})
	_ = tr.CheckToolBatch(1) // the delegate_tasks call itself
	tool, _, _ := newTestTool(t, "budget", func(o *Options) { o.Budget, o.Settings.BudgetInherit = tr, inheritShare })
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"b"}]}`))
	if !strings.Contains(out, "summary: 'budget':{'max_runtime_seconds':") || !strings.Contains(out, "'max_tool_calls':9,'max_cost_usd':1,'input_cost_per_million_usd':1,'output_cost_per_million_usd':1}") {
		t.Fatalf("the task file does not carry the parent's remaining budget:\n%s", out)
	}
	s := tr.Snapshot()
	if s.ToolCalls != 3 || s.InputTokens != 20 || s.OutputTokens != 10 || s.CostMicroUSD != 250000 {
		t.Fatalf("charge-back: %+v", s)
	}
}

// TestToolBudgetInEveryMode: operator mode (the default) passes the
// remaining budget too, and parallel children split it.
func TestToolBudgetInEveryMode(t *testing.T) {
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxToolCalls: 3}, Start: time.Now()})
	_ = tr.CheckToolBatch(1)
	tool, _, _ := newTestTool(t, "budget", func(o *Options) { o.Budget = tr })
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"a"},{"goal":"b"},{"goal":"c"}]}`))
	if strings.Count(out, "'max_tool_calls':1") != 2 || strings.Count(out, "'tool_calls_exhausted':true") != 1 {
		t.Fatalf("the children do not split the 2 calls left:\n%s", out)
	}
}

// TestToolOverrunStopsAtOnce: a charge-back past a limit is reported to
// OnOverrun as the typed budget error.
func TestToolOverrunStopsAtOnce(t *testing.T) {
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxToolCalls: 2}, Start: time.Now()})
	_ = tr.CheckToolBatch(1)
	var got []error
	var mu sync.Mutex
	tool, _, _ := newTestTool(t, "result", func(o *Options) {
		o.Budget = tr
		o.OnOverrun = func(err error) { mu.Lock(); got = append(got, err); mu.Unlock() }
	})
	call(t, tool, context.Background(), `{"tasks":[{"goal":"a"}]}`) // the child reports 2 tool calls
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || !budget.IsBudget(got[0]) || !strings.Contains(got[0].Error(), "tool_calls observed 3 calls (limit 2 calls)") {
		t.Fatalf("OnOverrun got %v", got)
	}
}

// TestToolChargesASilentChildItsReservation: a child that reports nothing
// is charged its whole share, so the count never falls below what it may
// have spent.
func TestToolChargesASilentChildItsReservation(t *testing.T) {
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxToolCalls: 9, MaxInputTokens: 1000}, Start: time.Now()})
	_ = tr.CheckToolBatch(1)
	tool, _, _ := newTestTool(t, "crash", func(o *Options) { o.Budget = tr })
	call(t, tool, context.Background(), `{"tasks":[{"goal":"a"},{"goal":"b"}]}`)
	if s := tr.Snapshot(); s.ToolCalls != 9 || s.InputTokens != 1000 {
		t.Fatalf("charged %d calls, %d tokens; want the reservations: 9, 1000", s.ToolCalls, s.InputTokens)
	}
}

func TestToolShareRefusesWhenExhausted(t *testing.T) {
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxToolCalls: 1}, Start: time.Now()})
	_ = tr.CheckToolBatch(1)
	tool, _, flush := newTestTool(t, "result", func(o *Options) { o.Budget, o.Settings.BudgetInherit = tr, inheritShare })
	_, err := tool.Call(context.Background(), json.RawMessage(`{"tasks":[{"goal":"g"}]}`))
	if !budget.IsBudget(err) || err.Error() != "subagent not spawned: execution budget exceeded: tool_calls observed 1 call (limit 1 call)" {
		t.Fatalf("err = %v", err)
	}
	if types := flush(); len(types) != 0 {
		t.Fatalf("a child was spawned: %v", types)
	}
}

// TestToolKillMarginExtendsTheDeadline: the child's own --timeout is the
// task's; the parent kills it only a margin later, so a child within its
// timeout is never cut short by the parent.
func TestToolKillMarginExtendsTheDeadline(t *testing.T) {
	tool, _, _ := newTestTool(t, "result", func(o *Options) {
		o.Settings.TimeoutSeconds, o.KillMargin = 1, 3*time.Second
	})
	if out := call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`); !strings.Contains(out, "status: success") {
		t.Fatalf("a child well within its 1 s timeout did not succeed:\n%s", out)
	}
}

// TestToolCompletedWithoutDuration: a duration of 0 (here a clock that
// stands still) is left out of subagent_completed, not reported as 0.
func TestToolCompletedWithoutDuration(t *testing.T) {
	at := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	tool, sink, flush := newTestTool(t, "silent-ok", func(o *Options) { o.Now = func() time.Time { return at } })
	call(t, tool, context.Background(), `{"tasks":[{"goal":"g"}]}`)
	flush()
	n := 0
	for _, ev := range sink.evs {
		if ev.Type == events.SubagentCompleted {
			n++
			if _, ok := ev.Data["duration_seconds"]; ok {
				t.Errorf("completed with a duration of 0: %v", ev.Data)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d completed events, want 1", n)
	}
}

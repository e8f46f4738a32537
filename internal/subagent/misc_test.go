package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/subagent/wire"
)

func TestParseArgsErrors(t *testing.T) {
	nine := `{"tasks":[` + strings.TrimSuffix(strings.Repeat(`{"goal":"g"},`, 9), ",") + `]}`
	tests := []struct{ in, want string }{
		{`{"tasks":`, `{"error":"parse failed: invalid JSON at byte 9: unexpected end of JSON input"}`},
		{`{"tasks":"x"}`, `{"error":"parse failed: field tasks: want []subagent.TaskSpec, got string"}`},
		{`{}`, `{"error":"no tasks provided"}`},
		{`{"tasks":[]}`, `{"error":"no tasks provided"}`},
		{``, `{"error":"no tasks provided"}`},
		{nine, `{"error":"max 8 tasks per call"}`},
		{`{"tasks":[{"goal":"a"},{"goal":" "}]}`, `{"error":"parse failed: tasks[1]: goal is required"}`},
		{`{"tasks":[{"goal":"a","trust_level":"admin"}]}`, `{"error":"parse failed: tasks[0]: trust_level \"admin\" is not one of trusted, untrusted"}`},
		{`{"tasks":[{"goal":"a","max_risk":"root"}]}`, `{"error":"parse failed: tasks[0]: max_risk \"root\" is not one of safe, local_write, system_write, destructive, code_execution, network_egress, install, blocked"}`},
	}
	for _, tc := range tests {
		a, text := parseArgs(json.RawMessage(tc.in))
		if a != nil || text != tc.want {
			t.Errorf("parseArgs(%.40q) = %q\nwant %q", tc.in, text, tc.want)
		}
	}
	a, text := parseArgs(json.RawMessage(`{"tasks":[{"goal":"a","trust_level":" trusted ","extra":1}],"description":"d"}`))
	if text != "" || len(a.Tasks) != 1 || a.Tasks[0].TrustLevel != wire.Trusted || a.Description != "d" {
		t.Fatalf("parseArgs = %+v, %q", a, text)
	}
}

func TestDepthLimitText(t *testing.T) {
	want := `{"error":"delegation depth limit reached (depth 2, max 2); do this work yourself instead of delegating"}`
	if got := depthLimitText(2, 2); got != want {
		t.Fatalf("got %s", got)
	}
}

func TestSchemaIsJSON(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal(schema(), &v); err != nil {
		t.Fatal(err)
	}
}

func TestSemaphoreBoundsAndWaitNotice(t *testing.T) {
	s := NewSemaphore(2, 20*time.Millisecond)
	if NewSemaphore(0, 0).Size() != 1 || NewSemaphore(99, 0).Size() != maxConcurrency || s.Size() != 2 {
		t.Fatal("size clamps")
	}
	ctx := context.Background()
	var inFlight, peak atomic.Int32
	var waits atomic.Int32
	done := make(chan struct{})
	for range 6 {
		go func() {
			err := s.Acquire(ctx, func(waited time.Duration) {
				if waited < 20*time.Millisecond {
					t.Errorf("notice after %v", waited)
				}
				waits.Add(1)
			})
			if err != nil {
				t.Error(err)
			}
			n := inFlight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(30 * time.Millisecond) // hold the slot past the notice threshold
			inFlight.Add(-1)
			s.Release()
			done <- struct{}{}
		}()
	}
	for range 6 {
		<-done
	}
	if peak.Load() != 2 {
		t.Fatalf("peak concurrency %d, want 2", peak.Load())
	}
	if waits.Load() == 0 {
		t.Fatal("no wait notice although tasks queued past the threshold")
	}
}

func TestSemaphoreCancel(t *testing.T) {
	s := NewSemaphore(1, time.Hour)
	if err := s.Acquire(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Acquire(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestChildEnv(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/h", "ODEK_API_KEY=sk-1", "OPENAI_API_KEY=sk-2", "GITHUB_TOKEN=t",
		"MY_DB=secret-from-file", "ODEK_SUBAGENT_DEPTH=7", "ODEK_API_KEY_FD=9", "ODEK_MODEL=m", "broken"}
	secret := func(n string) bool { return strings.Contains(n, "KEY") || strings.Contains(n, "TOKEN") }
	got := childEnv(parent, []string{"MY_DB"}, secret, 2, true)
	want := []string{"PATH=/bin", "HOME=/h", "ODEK_MODEL=m", "ODEK_SUBAGENT_DEPTH=2", "ODEK_API_KEY_FD=3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("childEnv (-want +got):\n%s", diff)
	}
	if got := childEnv(nil, nil, nil, 1, false); len(got) != 1 || got[0] != "ODEK_SUBAGENT_DEPTH=1" {
		t.Fatalf("no key: %v", got)
	}
}

func TestBudgetFor(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prices := budget.Prices{InputPerMillionUSD: 100, OutputPerMillionUSD: 100}
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxRuntimeSeconds: 100, MaxToolCalls: 10, MaxCostUSD: 1, MaxInputTokens: 1000},
		Prices: prices, Start: start})
	_ = tr.CheckToolBatch(4)
	_ = tr.AddUsage(budget.Usage{InputTokens: 500, OutputTokens: 10}) // $0.051
	g, err := tr.Reserve(1, start.Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := &wire.Budget{MaxRuntimeSeconds: 70, MaxToolCalls: 6, MaxCostUSD: 0.949, MaxInputTokens: 500,
		InputCostPerMillionUSD: 100, OutputCostPerMillionUSD: 100}
	if diff := cmp.Diff(want, budgetFor(g, 0)); diff != "" {
		t.Fatalf("budgetFor (-want +got):\n%s", diff)
	}
	for _, s := range g.Shares {
		_ = tr.Settle(s, budget.ChildUsage{})
	}
	// Eight children share 6 tool calls: six get one, two get an explicit
	// exhaustion flag (a 0 would read as "no limit").
	g, err = tr.Reserve(8, start.Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var calls int64
	for i := range g.Shares {
		b := budgetFor(g, i)
		calls += b.MaxToolCalls
		if (i >= 6) != b.ToolCallsExhausted {
			t.Errorf("child %d: %+v", i, b)
		}
	}
	if calls != 6 {
		t.Fatalf("shares add up to %d calls, want 6", calls)
	}
	if b := budgetFor(budget.Grants{Shares: make([]budget.Reservation, 1)}, 0); b != nil {
		t.Fatalf("no limits: %+v", b)
	}
}

func TestSettingsNormalized(t *testing.T) {
	got := Settings{MaxDepth: 99, TimeoutSeconds: 5000, MaxIterations: 500, BudgetInherit: "bogus"}.Normalized()
	if got != (Settings{MaxDepth: 8, TimeoutSeconds: 1800, MaxIterations: 100, BudgetInherit: inheritOperator}) {
		t.Fatalf("%+v", got)
	}
	if got := (Settings{MaxDepth: -1}).Normalized(); got != (Settings{MaxDepth: 2, TimeoutSeconds: 1800, MaxIterations: 15, BudgetInherit: inheritOperator}) {
		t.Fatalf("%+v", got)
	}
	// 0 is a setting of its own (no delegation at all), not "unset".
	if got := (Settings{MaxDepth: 0}).Normalized(); got.MaxDepth != 0 {
		t.Fatalf("max_depth 0 normalized to %d; delegation must stay off", got.MaxDepth)
	}
	// 1 is within the cap, and a timeout or iteration count of exactly 1 is kept.
	if got := (Settings{MaxDepth: 1, TimeoutSeconds: 1, MaxIterations: 1}).Normalized(); got.MaxDepth != 1 || got.TimeoutSeconds != 1 || got.MaxIterations != 1 {
		t.Fatalf("%+v", got)
	}
}

func TestArgsSummaryAndRisk(t *testing.T) {
	tool := NewTool(Options{})
	if got := tool.ArgsSummary(json.RawMessage(`{"tasks":[{"goal":"secret goal"},{"goal":"b"}]}`)); len(got) != 1 || got["task_count"] != 2 {
		t.Fatalf("ArgsSummary = %v", got)
	}
	a, err := tool.AssessRisk(nil)
	if err != nil || a.Class.String() != "safe" {
		t.Fatalf("AssessRisk = %+v, %v", a, err)
	}
}

// TestNewToolDefaults: an unset kill margin (0) and clock get their
// defaults; a margin given is kept.
func TestNewToolDefaults(t *testing.T) {
	if got := NewTool(Options{}).o.KillMargin; got != defaultKillMargin {
		t.Errorf("kill margin unset: %v, want %v", got, defaultKillMargin)
	}
	if got := NewTool(Options{KillMargin: time.Millisecond}).o.KillMargin; got != time.Millisecond {
		t.Errorf("kill margin 1ms: %v", got)
	}
	if NewTool(Options{}).o.Now == nil {
		t.Error("no clock")
	}
}

// TestSemaphoreNoticeDefault: a notice of 0 (or less) is DefaultWaitNotice,
// not a timer that fires at once; a notice given is kept.
func TestSemaphoreNoticeDefault(t *testing.T) {
	for _, tc := range []struct{ set, want time.Duration }{
		{0, DefaultWaitNotice}, {-time.Second, DefaultWaitNotice}, {time.Nanosecond, time.Nanosecond},
	} {
		if got := NewSemaphore(1, tc.set).notice; got != tc.want {
			t.Errorf("NewSemaphore(1, %v).notice = %v, want %v", tc.set, got, tc.want)
		}
	}
	if DefaultWaitNotice != 5*time.Second {
		t.Errorf("DefaultWaitNotice = %v, want the documented 5 s", DefaultWaitNotice)
	}
}

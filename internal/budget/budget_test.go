package budget

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 8, 7, 12, 0, 0, 0, time.UTC)

func f64(v float64) *float64 { return &v }

// wantBudget checks err against an expected limit/observed, or nil.
func wantBudget(t *testing.T, err error, limit string, observed float64) {
	t.Helper()
	if limit == "" {
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		return
	}
	var be *Error
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *budget.Error", err)
	}
	if be.Limit != limit || be.Observed != observed {
		t.Fatalf("got %s observed %v, want %s observed %v", be.Limit, be.Observed, limit, observed)
	}
}

func TestRuntimeBoundary(t *testing.T) {
	tr := NewTracker(Limits{MaxRuntimeSeconds: 10}, Prices{}, t0)
	tests := []struct {
		after time.Duration
		limit string
		obs   float64
	}{
		{0, "", 0},
		{9*time.Second + 999*time.Millisecond, "", 0}, // 9 whole seconds
		{10 * time.Second, LimitRuntime, 10},
		{12*time.Second + 500*time.Millisecond, LimitRuntime, 12},
		{-time.Second, "", 0}, // clock behind start
	}
	for _, tc := range tests {
		t.Run(tc.after.String(), func(t *testing.T) {
			wantBudget(t, tr.CheckRuntime(t0.Add(tc.after)), tc.limit, tc.obs)
		})
	}
}

func TestToolBatch(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 5}, Prices{}, t0)
	steps := []struct {
		n     int
		limit string
		obs   float64
		done  int64
	}{
		{3, "", 0, 3},
		{0, "", 0, 3},
		{3, LimitToolCalls, 6, 3}, // 3+3 > 5: observed done+n, nothing counted
		{2, "", 0, 5},             // exactly at the limit is allowed
		{1, LimitToolCalls, 6, 5},
	}
	for i, s := range steps {
		wantBudget(t, tr.CheckToolBatch(s.n), s.limit, s.obs)
		if got := tr.Snapshot().ToolCalls; got != s.done {
			t.Fatalf("step %d: done = %d, want %d", i, got, s.done)
		}
	}
}

func TestTokenBoundaries(t *testing.T) {
	tests := []struct {
		name  string
		l     Limits
		u     Usage
		limit string
		obs   float64
	}{
		{"input one below", Limits{MaxInputTokens: 100}, Usage{InputTokens: 99}, "", 0},
		{"input at limit", Limits{MaxInputTokens: 100}, Usage{InputTokens: 100}, LimitInputTokens, 100},
		{"cache counts as input", Limits{MaxInputTokens: 100},
			Usage{InputTokens: 50, CacheReadTokens: 30, CacheCreationTokens: 20}, LimitInputTokens, 100},
		{"cache one below", Limits{MaxInputTokens: 100},
			Usage{InputTokens: 50, CacheReadTokens: 30, CacheCreationTokens: 19}, "", 0},
		{"output one below", Limits{MaxOutputTokens: 10}, Usage{OutputTokens: 9}, "", 0},
		{"output at limit", Limits{MaxOutputTokens: 10}, Usage{OutputTokens: 10}, LimitOutputTokens, 10},
		{"input checked first", Limits{MaxInputTokens: 1, MaxOutputTokens: 1},
			Usage{InputTokens: 5, OutputTokens: 5}, LimitInputTokens, 5},
		{"no limits", Limits{}, Usage{InputTokens: 1e9, OutputTokens: 1e9}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantBudget(t, NewTracker(tc.l, Prices{}, t0).AddUsage(tc.u), tc.limit, tc.obs)
		})
	}
}

func TestTokensAccumulate(t *testing.T) {
	tr := NewTracker(Limits{MaxOutputTokens: 10}, Prices{}, t0)
	wantBudget(t, tr.AddUsage(Usage{OutputTokens: 6}), "", 0)
	if left, ok := tr.OutputTokensLeft(); !ok || left != 4 {
		t.Fatalf("OutputTokensLeft = %d, %v; want 4, true", left, ok)
	}
	wantBudget(t, tr.AddUsage(Usage{OutputTokens: 5}), LimitOutputTokens, 11)
	if left, ok := tr.OutputTokensLeft(); !ok || left != 0 {
		t.Fatalf("OutputTokensLeft = %d, %v; want 0, true", left, ok)
	}
	if _, ok := NewTracker(Limits{}, Prices{}, t0).OutputTokensLeft(); ok {
		t.Fatal("OutputTokensLeft without a limit reported ok")
	}
}

func TestResolvePrices(t *testing.T) {
	flat := Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2}
	per := map[string]ModelPrice{
		"gpt-x":   {InputPerMillionUSD: f64(3), OutputPerMillionUSD: f64(4)},
		"only-in": {InputPerMillionUSD: f64(5)},
	}
	tests := []struct {
		model string
		want  Prices
	}{
		{"gpt-x", Prices{InputPerMillionUSD: 3, OutputPerMillionUSD: 4}},
		{"only-in", Prices{InputPerMillionUSD: 5, OutputPerMillionUSD: 2}},
		{"GPT-X", flat}, // exact key only
		{"gpt-x-mini", flat},
		{"", flat},
	}
	for _, tc := range tests {
		if got := ResolvePrices(tc.model, flat, per); got != tc.want {
			t.Errorf("ResolvePrices(%q) = %+v, want %+v", tc.model, got, tc.want)
		}
	}
}

func TestCost(t *testing.T) {
	flat := Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2}
	per := map[string]ModelPrice{"big": {InputPerMillionUSD: f64(10), OutputPerMillionUSD: f64(20)}}
	tests := []struct {
		name  string
		model string
		max   float64
		u     Usage
		limit string
		obs   float64
	}{
		// flat $1/$2 per M: 5000·1 + 2500·2 = 10000 µ$ = $0.01; "big" is ten times that.
		{"flat one below", "small", 0.01, Usage{InputTokens: 4999, OutputTokens: 2500}, "", 0},
		{"flat at limit", "small", 0.01, Usage{InputTokens: 5000, OutputTokens: 2500}, LimitCostUSD, 0.01},
		{"model price matches", "big", 0.01, Usage{InputTokens: 500, OutputTokens: 250}, LimitCostUSD, 0.01},
		{"model price one below", "big", 0.01, Usage{InputTokens: 499, OutputTokens: 250}, "", 0},
		{"cache tokens priced as input", "small", 0.01,
			Usage{InputTokens: 1000, CacheReadTokens: 2000, CacheCreationTokens: 2000, OutputTokens: 2500}, LimitCostUSD, 0.01},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := ResolvePrices(tc.model, flat, per)
			tr := New(Options{Limits: Limits{MaxCostUSD: tc.max}, Prices: p, Start: t0})
			wantBudget(t, tr.AddUsage(tc.u), tc.limit, tc.obs)
		})
	}
}

func TestCostMicroRounding(t *testing.T) {
	tests := []struct {
		in, out, inP, outP, want int64
	}{
		{1, 0, 1_000_000, 0, 1},                         // $1/M × 1 token = 1 µ$
		{1, 0, 150_000, 0, 0},                           // 0.15 µ$ rounds down
		{4, 0, 150_000, 0, 1},                           // 0.6 µ$ rounds up
		{1, 1, 250_000, 250_000, 1},                     // 0.5 µ$ total rounds half up
		{3_000_001, 0, 150_000, 0, 450_000},             // millions split exactly
		{1 << 62, 1 << 62, 1 << 40, 1 << 40, 1<<63 - 1}, // saturates
	}
	for _, tc := range tests {
		if got := costMicro(tc.in, 0, tc.out, tc.inP, 0, tc.outP); got != tc.want {
			t.Errorf("costMicro(%d,%d,%d,%d) = %d, want %d", tc.in, tc.out, tc.inP, tc.outP, got, tc.want)
		}
	}
}

func TestCostNoDrift(t *testing.T) {
	// 0.1 $/M input: ten thousand 1-token responses cost exactly $0.001, although
	// each one alone (0.1 µ$) would round to zero.
	tr := New(Options{Limits: Limits{MaxCostUSD: 1}, Prices: Prices{InputPerMillionUSD: 0.1, OutputPerMillionUSD: 0.1}, Start: t0})
	for range 10_000 {
		if err := tr.AddUsage(Usage{InputTokens: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := tr.Snapshot().CostMicroUSD; got != 1000 {
		t.Fatalf("cost = %d µ$, want 1000", got)
	}
}

// A cap without both prices is not enforced (the config refuses to start
// such a run; the tracker alone still never makes up a cost).
func TestCostCapWithoutPrices(t *testing.T) {
	tests := []struct {
		name     string
		prices   Prices
		enforced bool
	}{
		{"no prices", Prices{}, false},
		{"only input price", Prices{InputPerMillionUSD: 1}, false},
		{"negative price", Prices{InputPerMillionUSD: -1, OutputPerMillionUSD: 1}, false},
		{"priced", Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := New(Options{Limits: Limits{MaxCostUSD: 0.000001, MaxOutputTokens: 10}, Prices: tc.prices, Start: t0})
			if got := tr.Snapshot().CostEnforced; got != tc.enforced {
				t.Fatalf("CostEnforced = %v, want %v", got, tc.enforced)
			}
			if tc.enforced {
				wantBudget(t, tr.AddUsage(Usage{InputTokens: 1}), LimitCostUSD, 0.000001)
				return
			}
			wantBudget(t, tr.AddUsage(Usage{InputTokens: 1e6, OutputTokens: 9}), "", 0)
			wantBudget(t, tr.AddUsage(Usage{OutputTokens: 1}), LimitOutputTokens, 10)
		})
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Limit: LimitToolCalls, Observed: 6, Max: 5, Ran: 3},
			"execution budget exceeded: tool_calls observed 6 calls (limit 5 calls): 3 ran, the batch of 3 more was not started"},
		{&Error{Limit: LimitToolCalls, Observed: 2, Max: 1, Ran: 1},
			"execution budget exceeded: tool_calls observed 2 calls (limit 1 call): 1 ran, the batch of 1 more was not started"},
		{&Error{Limit: LimitToolCalls, Observed: 0, Max: 0}, "execution budget exceeded: tool_calls observed 0 calls (limit 0 calls)"},
		{&Error{Limit: LimitToolCalls, Observed: 2, Max: 1},
			"execution budget exceeded: tool_calls observed 2 calls (limit 1 call): none ran, the batch of 2 was not started"},
		{&Error{Limit: LimitInputTokens, Observed: 1_000_000, Max: 1_000_000},
			"execution budget exceeded: input_tokens observed 1000000 tokens (limit 1000000 tokens)"},
		{&Error{Limit: LimitOutputTokens, Observed: 1, Max: 1},
			"execution budget exceeded: output_tokens observed 1 token (limit 1 token)"},
		{&Error{Limit: LimitRuntime, Observed: 61, Max: 60}, "execution budget exceeded: runtime observed 61s (limit 60s)"},
		{&Error{Limit: LimitCostUSD, Observed: 0.012345, Max: 0.01},
			"execution budget exceeded: cost_usd observed $0.012345 (limit $0.010000)"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	wrapped := fmt.Errorf("loop: %w", &Error{Limit: LimitRuntime, Observed: 1, Max: 1})
	if !IsBudget(wrapped) || IsBudget(errors.New("x")) || IsBudget(nil) {
		t.Fatal("IsBudget misclassifies")
	}
	var ec interface{ ErrorClass() string }
	if !errors.As(wrapped, &ec) || ec.ErrorClass() != "execution_budget" {
		t.Fatal("budget error does not report error class execution_budget")
	}
}

// The event data carries the error's numbers, their unit, and for a
// tool-call stop the calls that ran: error, event and report agree.
func TestErrorEventData(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 4}, Prices{}, t0)
	if err := tr.CheckToolBatch(3); err != nil {
		t.Fatal(err)
	}
	var be *Error
	if !errors.As(tr.CheckToolBatch(2), &be) {
		t.Fatal("no budget error")
	}
	want := map[string]any{"limit_name": "tool_calls", "observed": 5.0, "limit": 4.0, "unit": "calls", "calls_ran": int64(3)}
	if diff := cmp.Diff(want, be.EventData()); diff != "" {
		t.Fatalf("event data (-want +got):\n%s", diff)
	}
	if got := tr.Snapshot().Budgets()[LimitToolCalls]; got != (Budget{Limit: 4, Used: 3, Unit: UnitCalls}) {
		t.Fatalf("report budget %+v, want the 3 calls that ran", got)
	}
	exhausted := &Error{Limit: LimitToolCalls, Observed: 10, Max: 10} // found exhausted, e.g. a share-mode parent
	if d := exhausted.EventData(); d["calls_ran"] != int64(10) || exhausted.Error() != "execution budget exceeded: tool_calls observed 10 calls (limit 10 calls)" {
		t.Fatalf("exhausted: %v, %q", d, exhausted.Error())
	}
	rt := (&Error{Limit: LimitRuntime, Observed: 61, Max: 60}).EventData()
	if diff := cmp.Diff(map[string]any{"limit_name": "runtime", "observed": 61.0, "limit": 60.0, "unit": "seconds"}, rt); diff != "" {
		t.Fatalf("runtime event data (-want +got):\n%s", diff)
	}
	for name, unit := range map[string]string{LimitInputTokens: "tokens", LimitOutputTokens: "tokens", LimitCostUSD: "usd", "bogus": ""} {
		if got := UnitOf(name); got != unit {
			t.Errorf("UnitOf(%s) = %q, want %q", name, got, unit)
		}
	}
}

func TestDeadlineCause(t *testing.T) {
	// Start just under a second ago so the deadline is a few milliseconds away.
	tr := NewTracker(Limits{MaxRuntimeSeconds: 1}, Prices{}, time.Now().Add(-990*time.Millisecond))
	d, ok := tr.Deadline()
	if !ok {
		t.Fatal("no deadline")
	}
	ctx, cancel := context.WithDeadlineCause(context.Background(), d, tr.RuntimeError(d))
	defer cancel()
	<-ctx.Done() // an in-flight call observes this
	wantBudget(t, context.Cause(ctx), LimitRuntime, 1)
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("ctx.Err = %v", ctx.Err())
	}
	if got := tr.RuntimeError(t0).Observed; got != 1 { // early call still reports the limit
		t.Fatalf("early RuntimeError observed %v", got)
	}
	if _, ok := NewTracker(Limits{}, Prices{}, t0).Deadline(); ok {
		t.Fatal("deadline without runtime limit")
	}
}

func TestNilTracker(t *testing.T) {
	var tr *Tracker
	if tr.CheckRuntime(t0) != nil || tr.CheckToolBatch(100) != nil || tr.AddUsage(Usage{InputTokens: 1}) != nil {
		t.Fatal("nil tracker returned an error")
	}
	if _, ok := tr.Deadline(); ok {
		t.Fatal("nil tracker has a deadline")
	}
	if tr.RuntimeError(t0) != nil || tr.Snapshot() != (Snapshot{}) {
		t.Fatal("nil tracker returned values")
	}
	if _, ok := tr.OutputTokensLeft(); ok {
		t.Fatal("nil tracker has output headroom")
	}
}

func TestSnapshot(t *testing.T) {
	now := t0
	tr := New(Options{
		Limits: Limits{MaxRuntimeSeconds: 60, MaxToolCalls: 10, MaxInputTokens: 1000, MaxCostUSD: 1},
		Prices: Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2}, Start: t0, Now: func() time.Time { return now },
	})
	_ = tr.CheckToolBatch(3)
	_ = tr.AddUsage(Usage{InputTokens: 100, OutputTokens: 50, CacheReadTokens: 10, CacheCreationTokens: 5})
	now = t0.Add(2500 * time.Millisecond)
	got := tr.Snapshot()
	want := Snapshot{
		Limits: Limits{MaxRuntimeSeconds: 60, MaxToolCalls: 10, MaxInputTokens: 1000, MaxCostUSD: 1},
		Prices: Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2}, Priced: true, CostEnforced: true,
		RuntimeSeconds: 2, ToolCalls: 3, InputTokens: 115, OutputTokens: 50, PromptTokens: 100,
		CacheReadTokens: 10, CacheCreationTokens: 5, CostMicroUSD: 215, // 115·1 + 50·2
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("snapshot (-want +got):\n%s", diff)
	}
	wantB := map[string]Budget{
		LimitRuntime: {60, 2, "seconds"}, LimitToolCalls: {10, 3, "calls"}, LimitInputTokens: {1000, 115, "tokens"},
		LimitCostUSD: {1, 0.000215, "usd"},
	}
	if diff := cmp.Diff(wantB, got.Budgets()); diff != "" {
		t.Fatalf("budgets (-want +got):\n%s", diff)
	}
	if (Snapshot{}).Budgets() != nil {
		t.Fatal("empty snapshot has budgets")
	}
}

func TestConcurrent(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 1000, MaxOutputTokens: 1 << 40}, Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, t0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var denied int
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if tr.CheckToolBatch(1) != nil {
					mu.Lock()
					denied++
					mu.Unlock()
				}
				_ = tr.AddUsage(Usage{OutputTokens: 1})
				tr.OutputTokensLeft()
				tr.Snapshot()
			}
		})
	}
	wg.Wait()
	s := tr.Snapshot()
	if s.ToolCalls != 1000 || denied != 600 || s.OutputTokens != 1600 {
		t.Fatalf("tool calls %d denied %d output %d; want 1000, 600, 1600", s.ToolCalls, denied, s.OutputTokens)
	}
}

func BenchmarkCheckAndAdd(b *testing.B) {
	tr := NewTracker(Limits{MaxToolCalls: 1 << 60, MaxInputTokens: 1 << 60, MaxCostUSD: 1e12}, Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2}, t0)
	b.ReportAllocs()
	for b.Loop() {
		_ = tr.CheckRuntime(t0)
		_ = tr.CheckToolBatch(1)
		_ = tr.AddUsage(Usage{InputTokens: 10, OutputTokens: 1})
	}
}

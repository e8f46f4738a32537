package budget

import (
	"math"
	"testing"
	"time"
)

// A limit left at zero means "no limit": nothing binds, however much is used.
func TestUnsetLimitsNeverBind(t *testing.T) {
	tr := New(Options{Prices: Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, Start: t0})
	later := t0.Add(24 * time.Hour)
	if _, ok := tr.Deadline(); ok {
		t.Error("deadline without a runtime limit")
	}
	if tr.RuntimeError(later) != nil {
		t.Error("runtime error without a runtime limit")
	}
	wantBudget(t, tr.CheckRuntime(later), "", 0)
	wantBudget(t, tr.CheckToolBatch(1000), "", 0)
	wantBudget(t, tr.AddUsage(Usage{InputTokens: 1e9, OutputTokens: 1e9}), "", 0)
	wantBudget(t, tr.AddChild(ChildUsage{InputTokens: 5, OutputTokens: 5, ToolCalls: 5, CostMicroUSD: 5}), "", 0)
	if s := tr.Snapshot(); s.CostEnforced || s.ToolCalls != 1005 {
		t.Errorf("snapshot = %+v, want no cost enforcement and 1005 tool calls", s)
	}
	if _, ok := tr.OutputTokensLeft(); ok {
		t.Error("output headroom without an output limit")
	}
}

func TestDeadlineIsStartPlusLimit(t *testing.T) {
	tr := New(Options{Limits: Limits{MaxRuntimeSeconds: 90}, Start: t0})
	dl, ok := tr.Deadline()
	if !ok || !dl.Equal(t0.Add(90*time.Second)) {
		t.Fatalf("deadline = %v %v, want %v", dl, ok, t0.Add(90*time.Second))
	}
}

// Children may push the tool count past the limit (what they spent is
// counted); a batch of no calls is still never refused.
func TestToolBatchOfNoneAfterChildrenOverspent(t *testing.T) {
	tr := New(Options{Limits: Limits{MaxToolCalls: 2}, Start: t0})
	wantBudget(t, tr.AddChild(ChildUsage{ToolCalls: 3}), LimitToolCalls, 3)
	wantBudget(t, tr.CheckToolBatch(0), "", 0)
	wantBudget(t, tr.CheckToolBatch(1), LimitToolCalls, 4)
}

// A positive cost cap below one micro-dollar still binds: the first priced
// token exceeds it; it is never rounded down to "no cap".
func TestSubMicroDollarCostCaps(t *testing.T) {
	for _, capUSD := range []float64{0.0000004, 0.0000005, 1e-12, math.SmallestNonzeroFloat64} {
		tr := New(Options{Limits: Limits{MaxCostUSD: capUSD}, Prices: Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, Start: t0})
		if !tr.Snapshot().CostEnforced {
			t.Errorf("cap $%g: not enforced", capUSD)
			continue
		}
		wantBudget(t, tr.AddUsage(Usage{}), "", 0)
		wantBudget(t, tr.AddUsage(Usage{InputTokens: 1}), LimitCostUSD, 0.000001)
	}
}

func TestMicroConversions(t *testing.T) {
	tests := []struct {
		usd  float64
		want int64
	}{
		{0, 0}, {-1, 0}, {math.NaN(), 0}, {0.0000004, 0}, {0.0000005, 1}, {1.5, 1_500_000},
		{float64(math.MaxInt64) / 1e6, math.MaxInt64}, // exactly 2^63 µ$ saturates
		{1e300, math.MaxInt64},
	}
	for _, tc := range tests {
		if got := microPerMillion(tc.usd); got != tc.want {
			t.Errorf("microPerMillion(%g) = %d, want %d", tc.usd, got, tc.want)
		}
	}
}

func TestSaturatingArithmetic(t *testing.T) {
	const top = math.MaxInt64
	mul := []struct{ a, b, want int64 }{
		{0, 5, 0}, {5, 0, 0}, {3, 4, 12},
		{top / 2, 2, top - 1}, // the largest product that fits
		{top/2 + 1, 2, top},
		{top, top, top},
	}
	for _, tc := range mul {
		if got := satMul(tc.a, tc.b); got != tc.want {
			t.Errorf("satMul(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	add := []struct{ a, b, want int64 }{
		{1, 2, 3}, {top - 1, 1, top}, {top, 1, top}, {top, top, top},
	}
	for _, tc := range add {
		if got := satAdd(tc.a, tc.b); got != tc.want {
			t.Errorf("satAdd(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// Prompt is the whole prompt: each kind of input token counts once.
func TestUsagePrompt(t *testing.T) {
	if got := (Usage{InputTokens: 1, CacheReadTokens: 2, CacheCreationTokens: 4, OutputTokens: 8}).Prompt(); got != 7 {
		t.Fatalf("Prompt() = %d, want 7", got)
	}
}

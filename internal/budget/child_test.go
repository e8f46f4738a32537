package budget

import (
	"math"
	"testing"
)

func TestAddChildCountsAgainstEveryBudget(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		prices Prices
		own    Usage
		child  ChildUsage
		limit  string
		obs    float64
	}{
		{"input", Limits{MaxInputTokens: 100}, Prices{}, Usage{InputTokens: 60}, ChildUsage{InputTokens: 40}, LimitInputTokens, 100},
		{"input headroom", Limits{MaxInputTokens: 100}, Prices{}, Usage{InputTokens: 60}, ChildUsage{InputTokens: 39}, "", 0},
		{"output", Limits{MaxOutputTokens: 10}, Prices{}, Usage{OutputTokens: 5}, ChildUsage{OutputTokens: 7}, LimitOutputTokens, 12},
		{"tool calls over", Limits{MaxToolCalls: 3}, Prices{}, Usage{}, ChildUsage{ToolCalls: 4}, LimitToolCalls, 4},
		{"tool calls at limit", Limits{MaxToolCalls: 3}, Prices{}, Usage{}, ChildUsage{ToolCalls: 3}, "", 0},
		{"cost", Limits{MaxCostUSD: 0.01}, Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, Usage{InputTokens: 5000}, ChildUsage{CostMicroUSD: 5000}, LimitCostUSD, 0.01},
		{"negatives ignored", Limits{MaxInputTokens: 10}, Prices{}, Usage{}, ChildUsage{InputTokens: -50, OutputTokens: -1, ToolCalls: -1, CostMicroUSD: -1}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(tc.limits, tc.prices, t0)
			wantBudget(t, tr.AddUsage(tc.own), "", 0)
			wantBudget(t, tr.AddChild(tc.child), tc.limit, tc.obs)
		})
	}
}

func TestAddChildInSnapshotAndLaterChecks(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 5, MaxOutputTokens: 100}, Prices{InputPerMillionUSD: 2, OutputPerMillionUSD: 2}, t0)
	if err := tr.AddChild(ChildUsage{InputTokens: 10, OutputTokens: 20, ToolCalls: 2, CostMicroUSD: 7}); err != nil {
		t.Fatal(err)
	}
	s := tr.SnapshotAt(t0)
	if s.InputTokens != 10 || s.OutputTokens != 20 || s.ToolCalls != 2 || s.CostMicroUSD != 7 || s.Child.ToolCalls != 2 {
		t.Fatalf("snapshot = %+v", s)
	}
	// Own use is priced on top of the children's reported cost.
	if err := tr.AddUsage(Usage{InputTokens: 1_000_000}); err != nil {
		t.Fatal(err)
	}
	if got := tr.SnapshotAt(t0).CostMicroUSD; got != 2_000_007 {
		t.Fatalf("cost = %d micro-USD, want 2000007", got)
	}
	// The children's tool calls leave 3 for the parent.
	wantBudget(t, tr.CheckToolBatch(4), LimitToolCalls, 6)
	wantBudget(t, tr.CheckToolBatch(3), "", 0)
	if left, _ := tr.OutputTokensLeft(); left != 80 {
		t.Fatalf("output tokens left = %d, want 80", left)
	}
}

func TestAddChildNilTracker(t *testing.T) {
	var tr *Tracker
	if err := tr.AddChild(ChildUsage{ToolCalls: 1}); err != nil {
		t.Fatal(err)
	}
}

func TestCostFromUSD(t *testing.T) {
	for in, want := range map[float64]int64{0.25: 250000, -1: 0, math.NaN(): 0, math.Inf(1): 0, 0: 0} {
		if got := CostFromUSD(in); got != want {
			t.Errorf("CostFromUSD(%v) = %d, want %d", in, got, want)
		}
	}
}

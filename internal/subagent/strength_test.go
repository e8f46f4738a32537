package subagent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// These tests close survivors of mutation testing (scripts/hand-mutate.sh):
// a share-mode child given no cost cap, whatever the parent had left.

// costTracker is a parent with a $1 cap at $1 per million tokens that has
// already spent spentTokens input tokens (spentTokens micro-dollars).
func costTracker(t *testing.T, spentTokens int64) *budget.Tracker {
	t.Helper()
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxCostUSD: 1},
		Prices: budget.Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, Start: time.Now()})
	if err := tr.AddUsage(budget.Usage{InputTokens: spentTokens}); err != nil {
		t.Fatal(err)
	}
	return tr
}

// In share mode (and the default operator mode) each child's task file
// carries its share of the cost the parent has left, and the parent's
// prices; the charge-back counts what the children report.
func TestShareModeChildGetsItsCostShare(t *testing.T) {
	for _, mode := range []string{inheritShare, inheritOperator} {
		tr := costTracker(t, 400_000) // $0.40 spent, $0.60 left
		tool, _, _ := newTestTool(t, "budget", func(o *Options) { o.Budget, o.Settings.BudgetInherit = tr, mode })
		out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"a"},{"goal":"b"}]}`))
		want := "'max_cost_usd':0.3,'input_cost_per_million_usd':1,'output_cost_per_million_usd':1}"
		if strings.Count(out, want) != 2 {
			t.Fatalf("%s: the children do not carry $0.30 each and the prices:\n%s", mode, out)
		}
		if s := tr.Snapshot(); s.CostMicroUSD != 400_000+2*250_000 {
			t.Fatalf("%s: cost after the charge-back %d µ$, want 900000", mode, s.CostMicroUSD)
		}
	}
}

// A cost share of nothing is an explicit exhaustion flag, never an absent
// (unlimited) cap.
func TestShareModeExhaustedCostIsFlagged(t *testing.T) {
	tr := costTracker(t, 999_999) // one micro-dollar left for two children
	tool, _, _ := newTestTool(t, "budget", func(o *Options) { o.Budget, o.Settings.BudgetInherit = tr, inheritShare })
	out := unwrap(t, call(t, tool, context.Background(), `{"tasks":[{"goal":"a"},{"goal":"b"}]}`))
	if strings.Count(out, "'max_cost_usd':0.000001,") != 1 || strings.Count(out, "'cost_exhausted':true") != 1 {
		t.Fatalf("want one child with $0.000001 and one flagged exhausted:\n%s", out)
	}
	if strings.Count(out, "'input_cost_per_million_usd':1") != 2 {
		t.Fatalf("an exhausted child still needs the prices:\n%s", out)
	}
}

// budgetFor marks every limited dimension whose share is 0, and only those.
func TestBudgetForFlagsEachDimension(t *testing.T) {
	g := budget.Grants{Shares: []budget.Reservation{{}}, Limits: budget.Limits{MaxToolCalls: 1, MaxInputTokens: 1, MaxOutputTokens: 1}, CostEnforced: true}
	b := budgetFor(g, 0)
	if !b.ToolCallsExhausted || !b.InputTokensExhausted || !b.OutputTokensExhausted || !b.CostExhausted || b.RuntimeExhausted {
		t.Fatalf("BudgetFor = %+v, want each limited dimension exhausted", b)
	}
	g.Shares[0] = budget.Reservation{ToolCalls: 2, InputTokens: 3, OutputTokens: 4, CostMicroUSD: 5}
	g.Prices = budget.Prices{InputPerMillionUSD: 7, OutputPerMillionUSD: 8}
	want := wire.Budget{MaxToolCalls: 2, MaxInputTokens: 3, MaxOutputTokens: 4, MaxCostUSD: 0.000005, InputCostPerMillionUSD: 7, OutputCostPerMillionUSD: 8}
	if b := budgetFor(g, 0); *b != want {
		t.Fatalf("BudgetFor = %+v, want %+v", *b, want)
	}
	// A cost cap alone is a budget block.
	if b := budgetFor(budget.Grants{Shares: []budget.Reservation{{CostMicroUSD: 1}}, CostEnforced: true}, 0); b == nil || b.MaxCostUSD != 0.000001 {
		t.Fatalf("cost only: %+v", b)
	}
}

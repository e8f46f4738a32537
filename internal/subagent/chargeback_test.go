package subagent

import (
	"context"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
)

// TestToolChargesAChildWithoutUsageItsReservation: a child that says
// nothing of what it spent, whether it ends with a result that carries no
// usage or with no result at all, is charged its whole share in every
// limited dimension (tool calls, input and output tokens, cost): the tree's
// count never falls below what it may have spent. A child that reports
// its usage is charged that, not its share.
func TestToolChargesAChildWithoutUsageItsReservation(t *testing.T) {
	t.Parallel()
	type charge struct{ calls, input, output, costMicroUSD int64 }
	full := charge{9, 1000, 500, 2_000_000}
	for _, tc := range []struct {
		mode string
		want charge
	}{
		{"silent-ok", full}, // a result without usage
		{"silent", full},    // no result
		{"crash", full},
		{"budget", charge{3, 20, 10, 250_000}}, // a result with usage
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			tr := budget.New(budget.Options{Limits: budget.Limits{MaxToolCalls: 9, MaxInputTokens: 1000, MaxOutputTokens: 500, MaxCostUSD: 2},
				Prices: budget.Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, Start: time.Now()})
			_ = tr.CheckToolBatch(1) // the delegate_tasks call itself
			tool, _, _ := newTestTool(t, tc.mode, func(o *Options) { o.Budget = tr })
			call(t, tool, context.Background(), `{"tasks":[{"goal":"a"}]}`)
			s := tr.Snapshot()
			if got := (charge{s.ToolCalls, s.InputTokens, s.OutputTokens, s.CostMicroUSD}); got != tc.want {
				t.Fatalf("charged (calls, input, output, cost µ$) %+v, want %+v", got, tc.want)
			}
		})
	}
}

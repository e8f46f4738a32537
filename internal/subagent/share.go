package subagent

import (
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// Budget inheritance modes of subagent.budget_inherit. Since issue 18 both
// give every child its reserved share of what the parent has left (the
// run's flags included): a run's budget holds for its whole tree. The
// setting is kept so that existing configs load.
const (
	inheritOperator = "operator" // the child enforces the operator's limits and its share
	inheritShare    = "share"    // the same
)

// budgetFor is the budget block of the i-th child of a delegation granted g:
// for each limited dimension its share, or an explicit exhausted flag when
// its share is 0 (a 0 on the wire would read as "no limit"). It is nil when
// the parent has no limits. With a cost share it carries the parent's
// prices, so the child can enforce the cap whatever its own config prices.
func budgetFor(g budget.Grants, i int) *wire.Budget {
	l := g.Limits
	if l.MaxRuntimeSeconds <= 0 && l.MaxToolCalls <= 0 && l.MaxInputTokens <= 0 && l.MaxOutputTokens <= 0 && !g.CostEnforced {
		return nil
	}
	r := g.Shares[i]
	b := &wire.Budget{MaxRuntimeSeconds: g.RuntimeSeconds}
	set := func(limit, share int64, dst *int64, flag *bool) {
		if limit <= 0 {
			return
		}
		if share > 0 {
			*dst = share
		} else {
			*flag = true
		}
	}
	set(l.MaxToolCalls, r.ToolCalls, &b.MaxToolCalls, &b.ToolCallsExhausted)
	set(l.MaxInputTokens, r.InputTokens, &b.MaxInputTokens, &b.InputTokensExhausted)
	set(l.MaxOutputTokens, r.OutputTokens, &b.MaxOutputTokens, &b.OutputTokensExhausted)
	if g.CostEnforced {
		var micro int64
		set(1, r.CostMicroUSD, &micro, &b.CostExhausted)
		b.MaxCostUSD = float64(micro) / 1e6
		b.InputCostPerMillionUSD = g.Prices.InputPerMillionUSD
		b.OutputCostPerMillionUSD = g.Prices.OutputPerMillionUSD
	}
	return b
}

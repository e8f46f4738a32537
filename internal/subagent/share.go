package subagent

import "github.com/odek-run/odek/internal/budget"

// Budget inheritance modes of subagent.budget_inherit. Since issue 18 both
// give every child its reserved share of what the parent has left (the
// run's flags included): a run's budget holds for its whole tree. The
// setting is kept so that existing configs load.
const (
	InheritOperator = "operator" // the child enforces the operator's limits and its share
	InheritShare    = "share"    // the same
)

// BudgetFor is the budget block of the i-th child of a delegation granted g:
// for each limited dimension its share, or an explicit exhausted flag when
// its share is 0 (a 0 on the wire would read as "no limit"). It is nil when
// the parent has no limits. With a cost share it carries the parent's
// prices, so the child can enforce the cap whatever its own config prices.
func BudgetFor(g budget.Grants, i int) *Budget {
	l := g.Limits
	if l.MaxRuntimeSeconds <= 0 && l.MaxToolCalls <= 0 && l.MaxInputTokens <= 0 && l.MaxOutputTokens <= 0 && !g.CostEnforced {
		return nil
	}
	r := g.Shares[i]
	b := &Budget{MaxRuntimeSeconds: g.RuntimeSeconds}
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

// ChildLimits is the child's budget: for each dimension the lower of the
// operator's limit and the parent's remaining (an operator 0 takes the
// remaining). A dimension the block marks exhausted is a hard cap of zero,
// returned as the typed budget error: the child must stop before its first
// model call (exit 4).
func ChildLimits(op budget.Limits, b *Budget) (budget.Limits, error) {
	if b == nil {
		return op, nil
	}
	for _, f := range []struct {
		flag bool
		name string
	}{
		{b.RuntimeExhausted, budget.LimitRuntime}, {b.ToolCallsExhausted, budget.LimitToolCalls},
		{b.InputTokensExhausted, budget.LimitInputTokens}, {b.OutputTokensExhausted, budget.LimitOutputTokens},
		{b.CostExhausted, budget.LimitCostUSD},
	} {
		if f.flag {
			return op, &budget.Error{Limit: f.name, Observed: 0, Max: 0}
		}
	}
	l := op
	l.MaxRuntimeSeconds = lowerInt(op.MaxRuntimeSeconds, b.MaxRuntimeSeconds)
	l.MaxToolCalls = lowerInt(op.MaxToolCalls, b.MaxToolCalls)
	l.MaxInputTokens = lowerInt(op.MaxInputTokens, b.MaxInputTokens)
	l.MaxOutputTokens = lowerInt(op.MaxOutputTokens, b.MaxOutputTokens)
	if c := b.MaxCostUSD; c > 0 && (op.MaxCostUSD <= 0 || c < op.MaxCostUSD) {
		l.MaxCostUSD = c
	}
	return l, nil
}

func lowerInt(op, remaining int64) int64 {
	if remaining > 0 && (op <= 0 || remaining < op) {
		return remaining
	}
	return op
}

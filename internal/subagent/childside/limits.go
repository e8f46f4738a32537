package childside

import (
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// Limits is the child's budget: for each dimension the lower of the
// operator's limit and the parent's remaining (an operator 0 takes the
// remaining). A dimension the block marks exhausted is a hard cap of zero,
// returned as the typed budget error: the child must stop before its first
// model call (exit 4).
func Limits(op budget.Limits, b *wire.Budget) (budget.Limits, error) {
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

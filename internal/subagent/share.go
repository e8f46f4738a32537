package subagent

import (
	"math"

	"github.com/odek-run/odek/internal/budget"
)

// Budget inheritance modes of subagent.budget_inherit.
const (
	InheritOperator = "operator" // the child enforces the operator's limits only
	InheritShare    = "share"    // the child also gets what the parent has left
)

// ShareBudget is the share-mode budget block for a child of a parent whose
// tracker reads s: for each configured limit, what is left, and an explicit
// flag when nothing is. It is nil when the parent has no limits. When a
// dimension is exhausted, the typed budget error for it (the parent's own
// figures) is returned too: the parent must not spawn.
func ShareBudget(s budget.Snapshot) (*Budget, error) {
	l := s.Limits
	b := &Budget{}
	configured := false
	var first error
	exhausted := func(flag *bool, name string, used, limit float64) {
		*flag = true
		if first == nil {
			first = &budget.Error{Limit: name, Observed: used, Max: limit}
		}
	}
	ints := []struct {
		limit, used int64
		name        string
		dst         *int64
		flag        *bool
	}{
		{l.MaxRuntimeSeconds, s.RuntimeSeconds, budget.LimitRuntime, &b.MaxRuntimeSeconds, &b.RuntimeExhausted},
		{l.MaxToolCalls, s.ToolCalls, budget.LimitToolCalls, &b.MaxToolCalls, &b.ToolCallsExhausted},
		{l.MaxInputTokens, s.InputTokens, budget.LimitInputTokens, &b.MaxInputTokens, &b.InputTokensExhausted},
		{l.MaxOutputTokens, s.OutputTokens, budget.LimitOutputTokens, &b.MaxOutputTokens, &b.OutputTokensExhausted},
	}
	for _, d := range ints {
		if d.limit <= 0 {
			continue
		}
		configured = true
		if left := d.limit - d.used; left > 0 {
			*d.dst = left
		} else {
			exhausted(d.flag, d.name, float64(d.used), float64(d.limit))
		}
	}
	if s.CostEnforced {
		configured = true
		leftMicro := int64(math.Round(l.MaxCostUSD*1e6)) - s.CostMicroUSD
		if leftMicro > 0 {
			b.MaxCostUSD = float64(leftMicro) / 1e6
		} else {
			exhausted(&b.CostExhausted, budget.LimitCostUSD, s.CostUSD(), l.MaxCostUSD)
		}
	}
	if !configured {
		return nil, nil
	}
	return b, first
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

package budget

import "math"

// ChildUsage is what a sub-agent reported spending (DECISION 8: the
// provider-reported tokens, not an estimate). The parent charges it into its
// own tracker so the tree cannot outspend the parent's limits.
type ChildUsage struct {
	InputTokens  int64 // prompt + cache tokens
	OutputTokens int64
	ToolCalls    int64
	CostMicroUSD int64 // priced by the child with the operator's prices
	// Estimated: the child's provider reported no usage, and its counts
	// are its estimate (Usage.Estimated).
	Estimated bool
}

// CostFromUSD converts a reported dollar cost to micro-USD (negative, NaN and
// infinite values count as 0).
func CostFromUSD(usd float64) int64 {
	if !(usd > 0) || math.IsInf(usd, 0) {
		return 0
	}
	return toMicro(usd)
}

// AddChild charges a child's use: its tokens count against the input and
// output budgets, its tool calls against the tool-call budget and its cost
// against the cost budget. What was spent is always counted (a child cannot
// be refused after the fact); the first budget now exhausted is returned so
// the caller can report it. Negative figures are ignored.
func (t *Tracker) AddChild(u ChildUsage) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.addChildLocked(u)
}

func (t *Tracker) addChildLocked(u ChildUsage) error {
	t.child.InputTokens += max(u.InputTokens, 0)
	t.child.OutputTokens += max(u.OutputTokens, 0)
	t.child.ToolCalls += max(u.ToolCalls, 0)
	t.child.CostMicroUSD += max(u.CostMicroUSD, 0)
	t.child.Estimated = t.child.Estimated || u.Estimated
	t.toolCalls += max(u.ToolCalls, 0)
	t.recostLocked()
	if l := t.limits.MaxToolCalls; l > 0 && t.toolCalls > l {
		return &Error{Limit: LimitToolCalls, Observed: float64(t.toolCalls), Max: float64(l), Overrun: true}
	}
	return overrun(t.checkUsageLocked())
}

package budget

import "time"

// Snapshot is the limits and the use so far, for the run report.
type Snapshot struct {
	Limits       Limits
	Prices       Prices
	Priced       bool // both prices known, or the provider reported costs: CostMicroUSD is meaningful
	CostEnforced bool // MaxCostUSD > 0 and Priced

	RuntimeSeconds      int64 // whole seconds since start
	ToolCalls           int64 // executed (counted) tool calls
	InputTokens         int64 // prompt + cache-read + cache-creation, children's included
	OutputTokens        int64 // children's included
	PromptTokens        int64 // InputTokens without the cache tokens
	CacheReadTokens     int64
	CacheCreationTokens int64
	CostMicroUSD        int64 // children's included
	// Estimated: some token count above (own or a child's) is odek's
	// estimate, the provider having reported none; so are the cost and
	// the token and cost budgets' use.
	Estimated bool
	// Child is what sub-agents charged back (AddChild).
	Child ChildUsage
}

// Budget is one configured limit and its use, as the run report prints it.
type Budget struct {
	Limit float64 `json:"limit"`
	Used  float64 `json:"used"`
	Unit  string  `json:"unit"` // as in UnitOf
}

// Snapshot reads the tracker's clock for the runtime figure.
func (t *Tracker) Snapshot() Snapshot {
	if t == nil {
		return Snapshot{}
	}
	return t.SnapshotAt(t.now())
}

// SnapshotAt is Snapshot with an explicit time.
func (t *Tracker) SnapshotAt(now time.Time) Snapshot {
	if t == nil {
		return Snapshot{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return Snapshot{
		Limits:              t.limits,
		Prices:              t.prices,
		Priced:              (t.priced() || t.anyCost) && t.othersPricedLocked(),
		CostEnforced:        t.maxCost > 0,
		RuntimeSeconds:      t.elapsed(now),
		ToolCalls:           t.toolCalls,
		InputTokens:         t.inputLocked(),
		OutputTokens:        t.outputLocked(),
		PromptTokens:        t.usage.InputTokens,
		CacheReadTokens:     t.usage.CacheReadTokens,
		CacheCreationTokens: t.usage.CacheCreationTokens,
		CostMicroUSD:        t.costMicro,
		Estimated:           t.estimatedLocked(),
		Child:               t.child,
	}
}

// CostUSD is the cost in dollars; 0 when unpriced.
func (s Snapshot) CostUSD() float64 { return microToUSD(s.CostMicroUSD) }

// Budgets maps each configured limit name to its limit and use, for the run
// report's "budgets" object. A cost cap that is not enforced is left out.
// Nil when nothing is configured.
func (s Snapshot) Budgets() map[string]Budget {
	m := map[string]Budget{}
	add := func(name string, limit, used float64) {
		if limit > 0 {
			m[name] = Budget{Limit: limit, Used: used, Unit: UnitOf(name)}
		}
	}
	add(LimitRuntime, float64(s.Limits.MaxRuntimeSeconds), float64(s.RuntimeSeconds))
	add(LimitToolCalls, float64(s.Limits.MaxToolCalls), float64(s.ToolCalls))
	add(LimitInputTokens, float64(s.Limits.MaxInputTokens), float64(s.InputTokens))
	add(LimitOutputTokens, float64(s.Limits.MaxOutputTokens), float64(s.OutputTokens))
	if s.CostEnforced {
		add(LimitCostUSD, s.Limits.MaxCostUSD, s.CostUSD())
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

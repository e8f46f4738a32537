package budget

import "time"

// Reservation is the part of the tool-call, token and cost budgets set aside
// for one sub-agent while it runs. In a dimension the tracker limits, 0
// means nothing was left for this child; in one it does not limit, 0 means
// no limit. Runtime is never reserved: children run at the same time, so
// each gets all the time that is left.
type Reservation struct {
	ToolCalls    int64
	InputTokens  int64
	OutputTokens int64
	CostMicroUSD int64
}

// Grants are the reservations of one delegation: one per child, and the
// runtime every child may use.
type Grants struct {
	Shares []Reservation
	// RuntimeSeconds is the whole seconds left of the runtime budget; 0
	// without one.
	RuntimeSeconds int64
	Limits         Limits
	Prices         Prices
	CostEnforced   bool
}

// Reserve splits what is left of every limited dimension (the limit, less
// what was used, less what other children hold) into n shares, as equal as
// whole units allow (the first children get the remainder), and holds them
// until Settle. So parallel children, and parallel delegations, can never
// together be given more than the run has left. When a limited dimension
// has nothing left, nothing is reserved and the *Error for it (observed:
// used plus held) is returned: the caller must not spawn.
func (t *Tracker) Reserve(n int, now time.Time) (Grants, error) {
	if t == nil || n < 1 {
		return Grants{Shares: make([]Reservation, max(n, 0))}, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	g := Grants{Shares: make([]Reservation, n), Limits: t.limits, Prices: t.prices, CostEnforced: t.maxCost > 0}
	if l := t.limits.MaxRuntimeSeconds; l > 0 {
		el := t.elapsed(now)
		if el >= l {
			return Grants{}, &Error{Limit: LimitRuntime, Observed: float64(el), Max: float64(l)}
		}
		g.RuntimeSeconds = l - el
	}
	dims := []struct {
		name       string
		limit, now int64
		held       *int64
		share      func(*Reservation) *int64
		report     func(int64) float64
	}{
		{LimitToolCalls, t.limits.MaxToolCalls, t.toolCalls, &t.reserved.ToolCalls,
			func(r *Reservation) *int64 { return &r.ToolCalls }, toFloat},
		{LimitInputTokens, t.limits.MaxInputTokens, t.inputLocked(), &t.reserved.InputTokens,
			func(r *Reservation) *int64 { return &r.InputTokens }, toFloat},
		{LimitOutputTokens, t.limits.MaxOutputTokens, t.outputLocked(), &t.reserved.OutputTokens,
			func(r *Reservation) *int64 { return &r.OutputTokens }, toFloat},
		{LimitCostUSD, t.maxCost, t.costMicro, &t.reserved.CostMicroUSD,
			func(r *Reservation) *int64 { return &r.CostMicroUSD }, microToUSD},
	}
	for _, d := range dims {
		if d.limit > 0 && d.limit-d.now-*d.held <= 0 {
			max := float64(d.limit)
			if d.name == LimitCostUSD {
				max = t.limits.MaxCostUSD
			}
			return Grants{}, &Error{Limit: d.name, Observed: d.report(d.now + *d.held), Max: max,
				Estimated: d.name != LimitToolCalls && t.estimatedLocked()}
		}
	}
	for _, d := range dims {
		if d.limit <= 0 {
			continue
		}
		left := d.limit - d.now - *d.held
		for i := range g.Shares {
			s := left / int64(n)
			if int64(i) < left%int64(n) {
				s++
			}
			*d.share(&g.Shares[i]) = s
		}
		*d.held += left
	}
	return g, nil
}

func toFloat(v int64) float64 { return float64(v) }

// Settle releases a reservation and charges what the child spent (AddChild).
// A child that reported nothing (it was killed, or flooded its output) is
// charged its whole reservation in each dimension it did not report: the
// tree's count must never fall below what it may have spent.
func (t *Tracker) Settle(r Reservation, u ChildUsage) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserved.ToolCalls -= min(r.ToolCalls, t.reserved.ToolCalls)
	t.reserved.InputTokens -= min(r.InputTokens, t.reserved.InputTokens)
	t.reserved.OutputTokens -= min(r.OutputTokens, t.reserved.OutputTokens)
	t.reserved.CostMicroUSD -= min(r.CostMicroUSD, t.reserved.CostMicroUSD)
	return t.addChildLocked(u)
}

// Exceeded is the budget the run has gone past, nil if none: more tool
// calls than the limit, or tokens or cost at or past theirs. Only what
// children charged back can get there unchecked; a run that ends with an
// answer must still fail with it (exit 4).
func (t *Tracker) Exceeded() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.limits.MaxToolCalls; l > 0 && t.toolCalls > l {
		return &Error{Limit: LimitToolCalls, Observed: float64(t.toolCalls), Max: float64(l), Overrun: true}
	}
	return overrun(t.checkUsageLocked())
}

// overrun marks a budget error as found after the fact.
func overrun(err error) error {
	if e, ok := err.(*Error); ok {
		e.Overrun = true
	}
	return err
}

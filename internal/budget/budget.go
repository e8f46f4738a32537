// Package budget enforces odek's hard execution budgets: runtime, tool calls,
// input tokens, output tokens and cost.
//
// Invariants:
//   - A nil *Tracker has no limits: every method is a no-op that returns a nil
//     error, so callers never branch on "budgets configured?".
//   - A limit of 0 is "not configured". Runtime and token limits fire when the
//     measure reaches the limit (>=); a tool batch fires when done+n > max and
//     is then not counted.
//   - Cost is kept in integer micro-USD computed from cumulative tokens, so it
//     never drifts, and is enforced only when MaxCostUSD > 0 and both resolved
//     prices are positive (the config refuses a cap it cannot enforce). A
//     response whose provider reported its cost (OpenRouter's usage.cost)
//     counts that cost instead of one computed from its tokens.
//   - Every exhaustion is a *Error (exit code 4 in the CLI).
//   - Reserve holds what is left for running sub-agents until Settle, so
//     parallel children can never together be given more than the run has
//     left; Settle and AddChild report a charge-back past a limit at once,
//     and Exceeded reports it after the fact.
//   - A Tracker is safe for concurrent use; each call takes one short mutex.
package budget

import (
	"sync"
	"time"
)

// Limits are the configured maxima; 0 means no limit.
type Limits struct {
	MaxRuntimeSeconds int64
	MaxToolCalls      int64
	MaxInputTokens    int64
	MaxOutputTokens   int64
	MaxCostUSD        float64
}

// Usage is what one LLM response consumed. InputTokens is the prompt without
// cache tokens; the cache counts are added to it for the input budget and cost.
type Usage struct {
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	// CostUSD is the cost the provider reported for the response, when
	// CostReported; it then replaces the cost computed from the tokens.
	CostUSD      float64
	CostReported bool
	// Model is the model that served the response; "" is the run's own
	// (Options.Model). It prices the response (models.go).
	Model string
	// Estimated says some token count is odek's estimate of what it sent
	// and received, because the provider reported none: the budgets are
	// enforced on it all the same, and reports say so.
	Estimated bool
}

// Prompt is the whole prompt: uncached, cache read and cache written.
func (u Usage) Prompt() int64 { return u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens }

// Options configures a Tracker built with New.
type Options struct {
	Limits Limits
	Prices Prices // already resolved with ResolvePrices
	// Model is the run's model, which Prices price; ModelPrices price the
	// other models that may serve it (the fallback chain), resolved.
	Model       string
	ModelPrices map[string]Prices
	Start       time.Time
	Now         func() time.Time // clock for Snapshot; nil = time.Now
}

// Tracker accumulates use against Limits. Build it with New or NewTracker.
type Tracker struct {
	limits  Limits
	prices  Prices
	start   time.Time
	now     func() time.Time
	model   string
	main    priceSet          // the run's model's prices, micro-USD per million tokens
	others  map[string]Prices // other serving models' prices
	maxCost int64             // micro-USD; 0 = cost not enforced

	mu        sync.Mutex
	toolCalls int64
	usage     Usage
	models    []*modelUse // by serving model, in the order they first served
	reported  int64       // micro-USD the provider reported, summed
	anyCost   bool        // some response reported its cost
	costMicro int64       // own cost plus childCost
	estimated bool        // some own usage was estimated (Usage.Estimated)
	child     ChildUsage
	reserved  Reservation // held for running sub-agents (Reserve)
}

// NewTracker is New with the real clock.
func NewTracker(l Limits, p Prices, start time.Time) *Tracker {
	return New(Options{Limits: l, Prices: p, Start: start})
}

// New builds a Tracker whose clock starts at o.Start.
func New(o Options) *Tracker {
	t := &Tracker{
		limits: o.Limits,
		prices: o.Prices,
		start:  o.Start,
		now:    o.Now,
		model:  o.Model,
		main:   newPriceSet(o.Prices),
		others: o.ModelPrices,
	}
	if t.now == nil {
		t.now = time.Now
	}
	if o.Limits.MaxCostUSD > 0 && t.priced() {
		// A positive cap below half a micro-dollar still has to bind.
		t.maxCost = max(toMicro(o.Limits.MaxCostUSD), 1)
	}
	return t
}

func (t *Tracker) priced() bool { return t.main.ok() }

// Deadline is start + MaxRuntimeSeconds, for context.WithDeadlineCause.
func (t *Tracker) Deadline() (time.Time, bool) {
	if t == nil || t.limits.MaxRuntimeSeconds <= 0 {
		return time.Time{}, false
	}
	return t.start.Add(time.Duration(t.limits.MaxRuntimeSeconds) * time.Second), true
}

// elapsed is whole seconds since start, never negative.
func (t *Tracker) elapsed(now time.Time) int64 {
	return max(int64(now.Sub(t.start)/time.Second), 0)
}

// RuntimeError is the runtime budget error, meant as the cause of a context
// that expires at Deadline, so a call still running then is cancelled and
// context.Cause names the budget. Observed is never below the limit because
// the error only exists once the deadline has passed. Nil without a runtime limit.
func (t *Tracker) RuntimeError(now time.Time) *Error {
	if t == nil || t.limits.MaxRuntimeSeconds <= 0 {
		return nil
	}
	obs := max(t.elapsed(now), t.limits.MaxRuntimeSeconds)
	return &Error{Limit: LimitRuntime, Observed: float64(obs), Max: float64(t.limits.MaxRuntimeSeconds)}
}

// CheckRuntime fails when whole seconds since start >= MaxRuntimeSeconds. It
// is called before each LLM call.
func (t *Tracker) CheckRuntime(now time.Time) error {
	if t == nil || t.limits.MaxRuntimeSeconds <= 0 {
		return nil
	}
	if el := t.elapsed(now); el >= t.limits.MaxRuntimeSeconds {
		return &Error{Limit: LimitRuntime, Observed: float64(el), Max: float64(t.limits.MaxRuntimeSeconds)}
	}
	return nil
}

// CheckToolBatch is called before executing a batch of n tool calls. When
// done+n exceeds MaxToolCalls it fails with Observed = done+n and counts
// nothing; otherwise it counts the n calls. A denied batch must not be passed.
func (t *Tracker) CheckToolBatch(n int) error {
	if t == nil || n <= 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	next := t.toolCalls + int64(n)
	if t.limits.MaxToolCalls > 0 && next > t.limits.MaxToolCalls {
		return &Error{Limit: LimitToolCalls, Observed: float64(next), Max: float64(t.limits.MaxToolCalls), Ran: t.toolCalls}
	}
	t.toolCalls = next
	return nil
}

// AddUsage adds one response's usage, then checks input tokens, output tokens
// and cost (in that order) and returns the first exhausted budget.
func (t *Tracker) AddUsage(u Usage) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	addTokens(&t.usage, u)
	t.estimated = t.estimated || u.Estimated
	if u.CostReported {
		t.reported = satAdd(t.reported, microUSD(u.CostUSD))
		t.anyCost = true
	}
	t.addModelLocked(u)
	t.recostLocked()
	return t.checkUsageLocked()
}

// recostLocked recomputes the cost from the cumulative own tokens of the
// responses that reported no cost, each model's at its prices (cache reads
// at the cached price, cache writes at the input price), plus the costs
// providers reported, plus what children reported.
func (t *Tracker) recostLocked() {
	t.costMicro = satAdd(satAdd(t.ownCostLocked(), t.reported), t.child.CostMicroUSD)
}

// microUSD is a reported dollar amount in micro-USD; negative or NaN is 0.
func microUSD(usd float64) int64 {
	if !(usd > 0) {
		return 0
	}
	return toMicro(usd)
}

// checkUsageLocked returns the first exhausted token or cost budget.
func (t *Tracker) checkUsageLocked() error {
	// Ifs, not a switch: go's coverage profile (which gremlins reads) holds no
	// case expressions, so a switch's comparisons are never mutation-tested.
	in, out, l, est := t.inputLocked(), t.outputLocked(), t.limits, t.estimatedLocked()
	if l.MaxInputTokens > 0 && in >= l.MaxInputTokens {
		return &Error{Limit: LimitInputTokens, Observed: float64(in), Max: float64(l.MaxInputTokens), Estimated: est}
	}
	if l.MaxOutputTokens > 0 && out >= l.MaxOutputTokens {
		return &Error{Limit: LimitOutputTokens, Observed: float64(out), Max: float64(l.MaxOutputTokens), Estimated: est}
	}
	if t.maxCost > 0 && t.costMicro >= t.maxCost {
		return &Error{Limit: LimitCostUSD, Observed: microToUSD(t.costMicro), Max: l.MaxCostUSD, Estimated: est}
	}
	return nil
}

// estimatedLocked reports whether any token count so far, own or charged
// back, is an estimate.
func (t *Tracker) estimatedLocked() bool { return t.estimated || t.child.Estimated }

// inputLocked is the input-budget measure: prompt + cache-read + cache-creation,
// own and charged back by children.
func (t *Tracker) inputLocked() int64 {
	return t.usage.InputTokens + t.usage.CacheReadTokens + t.usage.CacheCreationTokens + t.child.InputTokens
}

func (t *Tracker) outputLocked() int64 { return t.usage.OutputTokens + t.child.OutputTokens }

// OutputTokensLeft is the output-token headroom (never negative), for clamping
// max_tokens before an LLM call; false when no output limit is set.
func (t *Tracker) OutputTokensLeft() (int64, bool) {
	if t == nil || t.limits.MaxOutputTokens <= 0 {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return max(t.limits.MaxOutputTokens-t.outputLocked(), 0), true
}

func microToUSD(m int64) float64 { return float64(m) / 1e6 }

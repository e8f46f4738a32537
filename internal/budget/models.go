package budget

// A run may be served by more than one model: the llm client's fallback
// chain moves to the next model when one is overloaded. Each response is
// priced by the model that served it (Usage.Model): the run's own model at
// Options.Prices, another at its Options.ModelPrices entry, and a model
// with neither at no price, which makes the run's cost unknown (Snapshot.
// Priced false) rather than wrong. Without Options.Model every response is
// priced at Options.Prices, whichever model served it.

// priceSet is one model's prices in micro-USD per million tokens.
type priceSet struct{ in, cached, out int64 }

func newPriceSet(p Prices) priceSet {
	s := priceSet{in: microPerMillion(p.InputPerMillionUSD), cached: microPerMillion(p.CachedInputPerMillionUSD),
		out: microPerMillion(p.OutputPerMillionUSD)}
	if s.cached == 0 {
		s.cached = s.in
	}
	return s
}

func (p priceSet) ok() bool { return p.in > 0 && p.out > 0 }

// cost is what tokens u cost at p (cache writes at the input price).
func (p priceSet) cost(u Usage) int64 {
	return costMicro(u.InputTokens+u.CacheCreationTokens, u.CacheReadTokens, u.OutputTokens, p.in, p.cached, p.out)
}

// ModelUsage is what one model served in a run, for the report.
type ModelUsage struct {
	Model string
	// InputTokens is the whole prompt (cache tokens included), as the
	// input budget counts it.
	InputTokens, OutputTokens int64
	Responses                 int64
	CostMicroUSD              int64
	// Priced: the model's tokens had prices (or reported costs), so
	// CostMicroUSD is its cost.
	Priced bool
}

// modelUse is one serving model's share of the run.
type modelUse struct {
	model     string
	own       bool // priced as the run's own model
	p         priceSet
	all       Usage // every response's tokens
	unpriced  Usage // of responses without a reported cost
	reported  int64 // micro-USD the provider reported
	responses int64
}

// useLocked is model's record, made on its first response. "" is the
// run's own model; so is every model when Options.Model is "" (a caller
// that knows of one model only).
func (t *Tracker) useLocked(model string) *modelUse {
	if model == "" {
		model = t.model
	}
	for _, m := range t.models {
		if m.model == model {
			return m
		}
	}
	m := &modelUse{model: model, own: t.model == "" || model == t.model, p: t.main}
	if !m.own {
		m.p = newPriceSet(t.others[model])
	}
	t.models = append(t.models, m)
	return m
}

// addModelLocked records u against the model that served it.
func (t *Tracker) addModelLocked(u Usage) {
	m := t.useLocked(u.Model)
	m.responses++
	addTokens(&m.all, u)
	if u.CostReported {
		m.reported = satAdd(m.reported, microUSD(u.CostUSD))
	} else {
		addTokens(&m.unpriced, u)
	}
}

// ownCostLocked is the cost of every response without a reported cost,
// each model's at its own prices (an unpriced model's at none).
func (t *Tracker) ownCostLocked() int64 {
	var c int64
	for _, m := range t.models {
		if m.p.ok() {
			c = satAdd(c, m.p.cost(m.unpriced))
		}
	}
	return c
}

// othersPricedLocked reports whether every model other than the run's own
// that served tokens without a reported cost has prices.
func (t *Tracker) othersPricedLocked() bool {
	for _, m := range t.models {
		if !m.own && !m.p.ok() && m.unpriced.Prompt()+m.unpriced.OutputTokens > 0 {
			return false
		}
	}
	return true
}

// Models is the usage of each model that served the run, in the order they
// first did: the report's list of the models used. Nil before the first
// response, and on a nil Tracker.
func (t *Tracker) Models() []ModelUsage {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.modelsLocked()
}

// modelsLocked is the per-model usage, in the order the models first served.
func (t *Tracker) modelsLocked() []ModelUsage {
	if len(t.models) == 0 {
		return nil
	}
	out := make([]ModelUsage, len(t.models))
	for i, m := range t.models {
		cost := m.reported
		if m.p.ok() {
			cost = satAdd(cost, m.p.cost(m.unpriced))
		}
		out[i] = ModelUsage{Model: m.model, InputTokens: m.all.Prompt(), OutputTokens: m.all.OutputTokens,
			Responses: m.responses, CostMicroUSD: cost,
			Priced: m.p.ok() || m.unpriced.Prompt()+m.unpriced.OutputTokens == 0}
	}
	return out
}

func addTokens(dst *Usage, u Usage) {
	dst.InputTokens += u.InputTokens
	dst.OutputTokens += u.OutputTokens
	dst.CacheReadTokens += u.CacheReadTokens
	dst.CacheCreationTokens += u.CacheCreationTokens
}

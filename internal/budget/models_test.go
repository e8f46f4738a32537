package budget

import (
	"errors"
	"testing"
)

// TestPricedByServingModel: each response is priced by the model that
// served it, the cost cap counts them all, the report lists each model's
// share, and a model without prices makes the run's cost unknown.
func TestPricedByServingModel(t *testing.T) {
	t.Parallel()
	tr := New(Options{
		Limits: Limits{MaxCostUSD: 40}, Start: t0,
		Model: "a", Prices: Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2},
		ModelPrices: map[string]Prices{"b": {InputPerMillionUSD: 10, CachedInputPerMillionUSD: 5, OutputPerMillionUSD: 20}},
	})
	steps := []struct {
		u    Usage
		cost int64 // micro-USD after it
	}{
		{Usage{InputTokens: 1_000_000}, 1_000_000},                                                                   // a: $1
		{Usage{Model: "a", OutputTokens: 500_000}, 2_000_000},                                                        // a: +$1
		{Usage{Model: "b", InputTokens: 1_000_000, CacheReadTokens: 1_000_000, OutputTokens: 1_000_000}, 37_000_000}, // b: $10 + $5 + $20
		{Usage{Model: "b", CostUSD: 0.5, CostReported: true, InputTokens: 9_000_000}, 37_500_000},                    // reported wins
	}
	for i, s := range steps {
		if err := tr.AddUsage(s.u); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := tr.Snapshot().CostMicroUSD; got != s.cost {
			t.Errorf("step %d: cost %d µ$, want %d", i, got, s.cost)
		}
	}
	if !tr.Snapshot().Priced {
		t.Errorf("every model priced, but the snapshot says not")
	}
	models := tr.Models()
	want := []ModelUsage{
		{Model: "a", InputTokens: 1_000_000, OutputTokens: 500_000, Responses: 2, CostMicroUSD: 2_000_000, Priced: true},
		{Model: "b", InputTokens: 11_000_000, OutputTokens: 1_000_000, Responses: 2, CostMicroUSD: 35_500_000, Priced: true},
	}
	if len(models) != len(want) {
		t.Fatalf("models = %+v", models)
	}
	for i := range want {
		if models[i] != want[i] {
			t.Errorf("model %d = %+v, want %+v", i, models[i], want[i])
		}
	}
	// A model the run has no price for: its tokens cost nothing known, so
	// the run's cost is not a cost.
	if err := tr.AddUsage(Usage{Model: "c", InputTokens: 10}); err != nil {
		t.Fatal(err)
	}
	if s := tr.Snapshot(); s.Priced || s.CostMicroUSD != 37_500_000 {
		t.Errorf("after an unpriced model: priced %v cost %d", s.Priced, s.CostMicroUSD)
	}
	if m := tr.Models(); len(m) != 3 || m[2].Priced || m[2].Model != "c" {
		t.Errorf("models = %+v", m)
	}
	// The cap counts every model: $3 more of b passes $40.
	var be *Error
	if err := tr.AddUsage(Usage{Model: "b", OutputTokens: 150_000}); !errors.As(err, &be) || be.Limit != LimitCostUSD {
		t.Errorf("cost across models: %v, want the cost budget", err)
	}
}

// TestPricedWithoutModel: a tracker told of no model prices every
// response at its prices, as before there were fallbacks.
func TestPricedWithoutModel(t *testing.T) {
	t.Parallel()
	tr := New(Options{Start: t0, Prices: Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}})
	if err := tr.AddUsage(Usage{Model: "gpt-x", InputTokens: 1_000_000}); err != nil {
		t.Fatal(err)
	}
	if s := tr.Snapshot(); !s.Priced || s.CostMicroUSD != 1_000_000 {
		t.Errorf("priced %v cost %d", s.Priced, s.CostMicroUSD)
	}
	if m := tr.Models(); len(m) != 1 || m[0].Model != "gpt-x" || !m[0].Priced {
		t.Errorf("models = %+v", m)
	}
}

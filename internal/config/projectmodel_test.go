package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/budget"
)

// TestProjectModelPricedAtLeastAtTheTable: the operator's flat prices beat
// odek's price table for the operator's own model, but not for a model a
// project file chose: that one costs at least its table price (claude-
// opus-4-1 is $15 / $75 per million), unless model_prices prices it, and
// one the table does not know cannot run under a cost cap priced by the
// flat prices alone.
func TestProjectModelPricedAtLeastAtTheTable(t *testing.T) {
	const flat = `{"model": "gpt-4o-mini", "limits": {"max_cost_usd": 1, "input_cost_per_million_usd": 0.15, "output_cost_per_million_usd": 0.6}}`
	cases := []struct {
		name, global, project string
		in, out               float64
		unenforceable         bool
	}{
		{"the operator's model keeps the flat prices", flat, ``, 0.15, 0.6, false},
		{"a project's dear model costs its table price", flat, `{"model": "claude-opus-4-1"}`, 15, 75, false},
		{"a project's cheap model keeps the higher flat price", flat, `{"model": "gpt-4.1-nano"}`, 0.15, 0.6, false},
		{"model_prices for the project's model win", `{"model": "gpt-4o-mini", "limits": {"max_cost_usd": 1, "input_cost_per_million_usd": 0.15, "output_cost_per_million_usd": 0.6,
			"model_prices": {"claude-opus-4-1": {"input_cost_per_million_usd": 1, "output_cost_per_million_usd": 2}}}}`, `{"model": "claude-opus-4-1"}`, 1, 2, false},
		{"a project's unknown model: no price the operator vouched for", flat, `{"model": "someones-dear-model-9"}`, 0.15, 0.6, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "a project's cheap model keeps the higher flat price" && budget.LookupPrice("gpt-4.1-nano") == nil {
				t.Skip("gpt-4.1-nano is not in the price table")
			}
			cfg, _ := fixture{global: c.global, project: c.project}.mustLoad(t)
			p := cfg.BudgetPrices()
			if p.InputPerMillionUSD != c.in || p.OutputPerMillionUSD != c.out {
				t.Errorf("prices %v / %v, want %v / %v", p.InputPerMillionUSD, p.OutputPerMillionUSD, c.in, c.out)
			}
			err := cfg.RequireEnforceableBudget()
			if got := errors.Is(err, ErrUnenforceableBudget); got != c.unenforceable {
				t.Errorf("RequireEnforceableBudget = %v, want unenforceable %v", err, c.unenforceable)
			}
		})
	}
}

// TestProjectUnknownModelAdvice: under a cost cap, a model a project file
// chose that the price table does not know is refused, and the advice must
// be one that works: the flat prices do not count for a project's model
// (only model_prices would price it), so the error says so whether or not
// the operator set any, and never asks for them.
func TestProjectUnknownModelAdvice(t *testing.T) {
	const notCounted = "the flat limits.*_cost_per_million_usd prices do not count for a model a project file chose"
	for _, flat := range []string{
		``,
		`, "input_cost_per_million_usd": 1`,
		`, "output_cost_per_million_usd": 1`,
		`, "input_cost_per_million_usd": 1, "output_cost_per_million_usd": 1`,
	} {
		global := `{"limits": {"max_cost_usd": 1` + flat + `}}`
		cfg, _ := fixture{global: global, project: `{"model": "someones-dear-model-9"}`}.mustLoad(t)
		err := cfg.RequireEnforceableBudget()
		if !errors.Is(err, ErrUnenforceableBudget) || !strings.Contains(err.Error(), notCounted) ||
			strings.Contains(err.Error(), "set limits.input_cost_per_million_usd") {
			t.Errorf("%s: err = %v, want unenforceable: %s", global, err, notCounted)
		}
	}
}

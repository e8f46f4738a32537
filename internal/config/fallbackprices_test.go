package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/budget"
)

// TestFallbackPrices: each fallback model is priced like the run's model:
// the operator's flat prices for the operator's fallbacks, never below the
// table for the project's, and a model nothing prices is named.
func TestFallbackPrices(t *testing.T) {
	t.Parallel()
	global := `{"limits": {"input_cost_per_million_usd": 0.01, "output_cost_per_million_usd": 0.02,
		"model_prices": {"mine": {"input_cost_per_million_usd": 3, "output_cost_per_million_usd": 4}}}}`
	c, _ := fixture{global: global, flags: []string{"llm.fallback_models=gpt-4o,mine,unknown-model"}}.mustLoad(t)
	prices, unpriced := c.FallbackPrices()
	if prices["gpt-4o"] != (budget.Prices{InputPerMillionUSD: 0.01, OutputPerMillionUSD: 0.02}) ||
		prices["mine"] != (budget.Prices{InputPerMillionUSD: 3, OutputPerMillionUSD: 4}) || len(unpriced) != 0 {
		t.Errorf("operator's fallbacks: %+v unpriced %q", prices, unpriced)
	}
	c, _ = fixture{global: global, project: `{"llm": {"fallback_models": ["gpt-4o", "mine", "unknown-model"]}}`}.mustLoad(t)
	prices, unpriced = c.FallbackPrices()
	table := budget.LookupPrice("gpt-4o")
	if p := prices["gpt-4o"]; p.InputPerMillionUSD != table.Input || p.OutputPerMillionUSD != table.Output {
		t.Errorf("a project's fallback is priced below the table: %+v, table %+v", p, table)
	}
	if prices["mine"] != (budget.Prices{InputPerMillionUSD: 3, OutputPerMillionUSD: 4}) || !slices.Equal(unpriced, []string{"unknown-model"}) {
		t.Errorf("project's fallbacks: %+v unpriced %q", prices, unpriced)
	}
}

// TestUnpricedFallbackRefusesACostCap: a cost cap with a fallback model
// nothing prices is a setup error naming the model and the setting that
// would price it; priced fallbacks, or no cap, pass.
func TestUnpricedFallbackRefusesACostCap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"unpriced", []string{"limits.max_cost_usd=1", "llm.fallback_models=gpt-4o,unknown-model"}, `fallback model "unknown-model"`},
		{"priced", []string{"limits.max_cost_usd=1", "llm.fallback_models=gpt-4o"}, ""},
		{"no cap", []string{"llm.fallback_models=unknown-model"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _ := fixture{flags: tc.flags}.mustLoad(t)
			err := c.RequireEnforceableBudget()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("RequireEnforceableBudget = %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `limits.model_prices."unknown-model"`)):
				t.Fatalf("RequireEnforceableBudget = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

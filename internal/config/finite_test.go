package config

import (
	"errors"
	"strings"
	"testing"
)

// A number that is not finite would be a limit of +Inf (no limit at all) or
// a NaN that every comparison lets through: it is refused wherever a number
// is read (issue 18 item 7).
func TestNonFiniteNumbersRefused(t *testing.T) {
	files := []struct{ global, project, want string }{
		{`{"limits": {"max_cost_usd": 1e400}}`, "", `"limits.max_cost_usd" must be a finite number, got 1e400`},
		{"", `{"limits": {"max_cost_usd": 1e400}}`, `"limits.max_cost_usd" must be a finite number, got 1e400`},
		{`{"limits": {"max_cost_usd": -1e400}}`, "", `"limits.max_cost_usd" must be a finite number, got -1e400`},
		{`{"limits": {"input_cost_per_million_usd": 1e309}}`, "", `"limits.input_cost_per_million_usd" must be a finite number, got 1e309`},
		{`{"limits": {"output_cost_per_million_usd": -2e308}}`, "", `"limits.output_cost_per_million_usd" must be a finite number, got -2e308`},
		{`{"limits": {"model_prices": {"m": {"input_cost_per_million_usd": 1e400, "output_cost_per_million_usd": 1}}}}`, "", `"limits.model_prices.m.input_cost_per_million_usd" must be a finite number, got 1e400`},
	}
	for _, f := range files {
		c, _, err := fixture{global: f.global, project: f.project}.load(t)
		if err == nil || !strings.Contains(err.Error(), f.want) || !errors.Is(err, ErrSetup) {
			t.Errorf("%s%s: err = %v (cap %v), want %q", f.global, f.project, err, c, f.want)
		}
	}
	for _, text := range []string{"1e400", "-1e400", "Inf", "+Inf", "-inf", "infinity", "NaN", "nan"} {
		for _, key := range []string{"limits.max_cost_usd", "limits.input_cost_per_million_usd"} {
			var o Overrides
			if err := o.Set(key, text, "-c "+key); err == nil || err.Error() != "not a number" {
				t.Errorf("-c %s=%s: err = %v, want not a number", key, text, err)
			}
		}
	}
	// A very small number is a number: it rounds to 0 (no limit), as 0 does.
	if c, _, err := (fixture{global: `{"limits": {"max_cost_usd": 1e-400}}`}).load(t); err != nil || c.Limits.MaxCostUSD != 0 {
		t.Errorf("1e-400: %v", err)
	}
}

package config

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/odek-run/odek/internal/budget"
)

// RequireEnforceableBudget reports a cost cap that cannot be enforced
// because the run's model has no input and output price: a setup error
// (exit 3) before the first model call, wherever the cap or the model came
// from. Without it a project file naming an unpriced model would turn the
// operator's cost cap into a warning (issue 8 item 4).
func (c *Config) RequireEnforceableBudget() error {
	if c.Limits.MaxCostUSD <= 0 {
		return nil
	}
	p := budget.ResolvePrices(c.Model, c.Prices, c.ModelPrices)
	if p.InputPerMillionUSD > 0 && p.OutputPerMillionUSD > 0 {
		return nil
	}
	global := "~/.odek/config.json"
	if c.Home != "" {
		global = filepath.Join(c.Home, "config.json")
	}
	return &SetupError{
		Msg: fmt.Sprintf("limits.max_cost_usd %s (%s) cannot be enforced: model %q (%s) has no input and output price (it is not in odek's price table); "+
			"set limits.input_cost_per_million_usd and limits.output_cost_per_million_usd, or limits.model_prices.%q, in %s",
			strconv.FormatFloat(c.Limits.MaxCostUSD, 'f', -1, 64), c.origin("limits.max_cost_usd"),
			c.Model, c.origin("model"), c.Model, global),
		Err: ErrUnenforceableBudget,
	}
}

// origin words Source for messages.
func (c *Config) origin(key string) string {
	if s := c.Source(key); s != "" {
		return "from " + s
	}
	return "the default"
}

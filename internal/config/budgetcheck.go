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
// operator's cost cap into a warning (issue 8 item 4). A fallback model
// (llm.fallback_models) without prices is refused the same way: the run
// could move to it and spend unpriced.
func (c *Config) RequireEnforceableBudget() error {
	if c.Limits.MaxCostUSD <= 0 {
		return nil
	}
	global := "~/.odek/config.json"
	if c.Home != "" {
		global = filepath.Join(c.Home, "config.json")
	}
	capText := strconv.FormatFloat(c.Limits.MaxCostUSD, 'f', -1, 64)
	p, ok := c.budgetPrices()
	if ok && p.InputPerMillionUSD > 0 && p.OutputPerMillionUSD > 0 {
		if _, unpriced := c.FallbackPrices(); len(unpriced) > 0 {
			m := unpriced[0]
			return &SetupError{
				Msg: fmt.Sprintf("limits.max_cost_usd %s (%s) cannot be enforced: fallback model %q (%s) has no input and output price (the run may move to it); set limits.model_prices.%q in %s",
					capText, c.origin("limits.max_cost_usd"), m, c.origin("llm.fallback_models"), m, global),
				Err: ErrUnenforceableBudget,
			}
		}
		return nil
	}
	if !ok {
		return &SetupError{
			Msg: fmt.Sprintf("limits.max_cost_usd %s (%s) cannot be enforced: model %q (%s) is not in odek's price table, "+
				"and the flat limits.*_cost_per_million_usd prices do not count for a model a project file chose; set limits.model_prices.%q in %s",
				capText, c.origin("limits.max_cost_usd"), c.Model, c.origin("model"), c.Model, global),
			Err: ErrUnenforceableBudget,
		}
	}
	return &SetupError{
		Msg: fmt.Sprintf("limits.max_cost_usd %s (%s) cannot be enforced: model %q (%s) has no input and output price (it is not in odek's price table); "+
			"set limits.input_cost_per_million_usd and limits.output_cost_per_million_usd, or limits.model_prices.%q, in %s",
			capText, c.origin("limits.max_cost_usd"), c.Model, c.origin("model"), c.Model, global),
		Err: ErrUnenforceableBudget,
	}
}

// BudgetPrices are the prices the run's budget counts tokens at:
// budget.ResolvePrices, except for a model a project file chose (see
// budgetPrices).
func (c *Config) BudgetPrices() budget.Prices {
	p, _ := c.budgetPrices()
	return p
}

// budgetPrices resolves the model's prices. The operator's flat prices beat
// the price table, and were set for the operator's model: a project file
// that picks a dear model would otherwise be counted at them and spend many
// times the cost cap. So a model the project file chose, unless
// model_prices prices it, costs at least its price in the table; one the
// table does not know is priced by nothing the operator vouched for (ok
// false: RequireEnforceableBudget refuses a cost cap on it, naming
// model_prices, the one setting that would price it).
func (c *Config) budgetPrices() (budget.Prices, bool) {
	return c.pricesFor(c.Model, c.fromProject("model"))
}

// FallbackPrices are the prices of the fallback models (llm.fallback_models)
// by model id, for budget.Options.ModelPrices, under the rule of the
// model's own prices: fallbacks a project file named cost at least their
// price in the table. unpriced lists, in order, the fallbacks without an
// input and output price (a cost cap cannot be enforced on them).
func (c *Config) FallbackPrices() (prices map[string]budget.Prices, unpriced []string) {
	project := c.fromProject("llm.fallback_models")
	for _, m := range c.LLM.FallbackModels {
		p, ok := c.pricesFor(m, project)
		if prices == nil {
			prices = map[string]budget.Prices{}
		}
		prices[m] = p
		if !ok || p.InputPerMillionUSD <= 0 || p.OutputPerMillionUSD <= 0 {
			unpriced = append(unpriced, m)
		}
	}
	return prices, unpriced
}

// fromProject reports whether the project file set key.
func (c *Config) fromProject(key string) bool {
	i := keyIndex()[key]
	return c.kinds != nil && c.kinds[i] == projectLayer
}

// pricesFor resolves model's prices; project says the project file chose it.
func (c *Config) pricesFor(model string, project bool) (budget.Prices, bool) {
	p := budget.ResolvePrices(model, c.Prices, c.ModelPrices)
	if !project {
		return p, true
	}
	if _, priced := c.ModelPrices[model]; priced {
		return p, true
	}
	r := budget.LookupPrice(model)
	if r == nil {
		// Only the flat prices could price it: they do not vouch for it,
		// whether the operator set them or not.
		return p, false
	}
	p.InputPerMillionUSD = max(p.InputPerMillionUSD, r.Input)
	p.CachedInputPerMillionUSD = max(p.CachedInputPerMillionUSD, r.CachedInput)
	p.OutputPerMillionUSD = max(p.OutputPerMillionUSD, r.Output)
	return p, true
}

// origin words Source for messages.
func (c *Config) origin(key string) string {
	if s := c.Source(key); s != "" {
		return "from " + s
	}
	return "the default"
}

package config

import (
	"fmt"
	"math"

	"github.com/odek-run/odek/internal/budget"
)

// filePrice is one limits.model_prices entry as written.
type filePrice struct {
	Input  *float64 `json:"input_cost_per_million_usd"`
	Cached *float64 `json:"cached_input_cost_per_million_usd"`
	Output *float64 `json:"output_cost_per_million_usd"`
}

// convertPrices turns the decoded model_prices into budget's type; an
// empty map is none.
func convertPrices(v any) any {
	m := v.(map[string]filePrice)
	if len(m) == 0 {
		return map[string]budget.ModelPrice(nil)
	}
	out := make(map[string]budget.ModelPrice, len(m))
	for id, p := range m {
		out[id] = budget.ModelPrice{InputPerMillionUSD: p.Input, CachedInputPerMillionUSD: p.Cached, OutputPerMillionUSD: p.Output}
	}
	return out
}

// checkPrices rejects negative model prices.
func checkPrices(v any) error {
	m := v.(map[string]budget.ModelPrice)
	for _, id := range sortedKeys(m) {
		key := "limits.model_prices." + id + "."
		if err := firstError(
			nonNegative(key+"input_cost_per_million_usd", m[id].InputPerMillionUSD),
			nonNegative(key+"cached_input_cost_per_million_usd", m[id].CachedInputPerMillionUSD),
			nonNegative(key+"output_cost_per_million_usd", m[id].OutputPerMillionUSD),
		); err != nil {
			return err
		}
	}
	return nil
}

// nonNegative checks an optional number; key names it.
func nonNegative[T int | int64 | float64](key string, v *T) error {
	if v == nil {
		return nil
	}
	if f := float64(*v); f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%s must be a non-negative number, got %v", key, *v)
	}
	return nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

package config

import (
	"fmt"
	"math"

	"github.com/odek-run/odek/internal/budget"
)

// validateLimits rejects negative limits and prices in one file.
func validateLimits(l *fileLimits, path string) error {
	if l == nil {
		return nil
	}
	errs := []error{
		nonNegative(path, "limits.max_runtime_seconds", l.MaxRuntimeSeconds),
		nonNegative(path, "limits.max_tool_calls", l.MaxToolCalls),
		nonNegative(path, "limits.max_input_tokens", l.MaxInputTokens),
		nonNegative(path, "limits.max_output_tokens", l.MaxOutputTokens),
		nonNegative(path, "limits.max_cost_usd", l.MaxCostUSD),
		nonNegative(path, "limits.input_cost_per_million_usd", l.InputCost),
		nonNegative(path, "limits.output_cost_per_million_usd", l.OutputCost),
	}
	for _, id := range sortedKeys(l.ModelPrices) {
		mp := l.ModelPrices[id]
		key := "limits.model_prices." + id + "."
		errs = append(errs,
			nonNegative(path, key+"input_cost_per_million_usd", mp.Input),
			nonNegative(path, key+"output_cost_per_million_usd", mp.Output))
	}
	return firstError(errs...)
}

// nonNegative checks an optional numeric setting; src names where it came
// from (a file, an environment variable or a flag).
func nonNegative[T int | int64 | float64](src, key string, v *T) error {
	if v == nil {
		return nil
	}
	if f := float64(*v); f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return setupErrorf("%s: %s must be a non-negative number, got %v", src, key, *v)
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

// globalBudget converts the global limits section; 0 or absent means none.
func globalBudget(l *fileLimits) (budget.Limits, budget.Prices, map[string]budget.ModelPrice) {
	if l == nil {
		return budget.Limits{}, budget.Prices{}, nil
	}
	lim := budget.Limits{
		MaxRuntimeSeconds: deref(l.MaxRuntimeSeconds),
		MaxToolCalls:      deref(l.MaxToolCalls),
		MaxInputTokens:    deref(l.MaxInputTokens),
		MaxOutputTokens:   deref(l.MaxOutputTokens),
		MaxCostUSD:        deref(l.MaxCostUSD),
	}
	prices := budget.Prices{InputPerMillionUSD: deref(l.InputCost), OutputPerMillionUSD: deref(l.OutputCost)}
	var mp map[string]budget.ModelPrice
	if len(l.ModelPrices) > 0 {
		mp = make(map[string]budget.ModelPrice, len(l.ModelPrices))
		for id, p := range l.ModelPrices {
			mp[id] = budget.ModelPrice{InputPerMillionUSD: p.Input, OutputPerMillionUSD: p.Output}
		}
	}
	return lim, prices, mp
}

// clampProjectLimits lets the project only tighten the global limits.
func clampProjectLimits(g budget.Limits, p *fileLimits, path, globalPath string) (budget.Limits, []string) {
	if p == nil {
		return g, nil
	}
	c := clamp{path: path, globalPath: globalPath}
	g.MaxRuntimeSeconds = clampLimit(&c, "max_runtime_seconds", g.MaxRuntimeSeconds, p.MaxRuntimeSeconds)
	g.MaxToolCalls = clampLimit(&c, "max_tool_calls", g.MaxToolCalls, p.MaxToolCalls)
	g.MaxInputTokens = clampLimit(&c, "max_input_tokens", g.MaxInputTokens, p.MaxInputTokens)
	g.MaxOutputTokens = clampLimit(&c, "max_output_tokens", g.MaxOutputTokens, p.MaxOutputTokens)
	g.MaxCostUSD = clampLimit(&c, "max_cost_usd", g.MaxCostUSD, p.MaxCostUSD)
	return g, c.warns
}

type clamp struct {
	path, globalPath string
	warns            []string
}

// clampLimit resolves one limit: an absent or zero project value inherits
// the global one, a project value may add a limit the global lacks or lower
// it, and a higher one is clamped to the global value with a warning.
func clampLimit[T int64 | float64](c *clamp, key string, global T, project *T) T {
	switch {
	case project == nil || *project == 0:
		return global
	case global == 0 || *project <= global:
		return *project
	}
	c.warns = append(c.warns, fmt.Sprintf("%s: limits.%s %v is above the global limit %v set in %s; clamped to %v",
		c.path, key, *project, global, c.globalPath, global))
	return global
}

// applyLimitFlags applies the operator's --max-* flags, which may raise a
// limit as well as lower it; an explicit 0 removes the limit.
func applyLimitFlags(l budget.Limits, o Overrides) (budget.Limits, error) {
	err := firstError(
		nonNegative("--max-runtime", "value", o.MaxRuntimeSeconds),
		nonNegative("--max-tool-calls", "value", o.MaxToolCalls),
		nonNegative("--max-input-tokens", "value", o.MaxInputTokens),
		nonNegative("--max-output-tokens", "value", o.MaxOutputTokens),
		nonNegative("--max-cost-usd", "value", o.MaxCostUSD),
	)
	if err != nil {
		return l, err
	}
	setIf(&l.MaxRuntimeSeconds, o.MaxRuntimeSeconds)
	setIf(&l.MaxToolCalls, o.MaxToolCalls)
	setIf(&l.MaxInputTokens, o.MaxInputTokens)
	setIf(&l.MaxOutputTokens, o.MaxOutputTokens)
	setIf(&l.MaxCostUSD, o.MaxCostUSD)
	return l, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// setIf overwrites *dst when an upper layer set src.
func setIf[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

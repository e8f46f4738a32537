package childside

import (
	"testing"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// Limits takes the lower of the operator's limit and the share in
// every dimension (an operator 0 takes the share), and refuses each
// exhausted dimension by name.
func TestLimitsEveryDimension(t *testing.T) {
	share := &wire.Budget{MaxRuntimeSeconds: 10, MaxToolCalls: 3, MaxInputTokens: 30, MaxOutputTokens: 20, MaxCostUSD: 0.3}
	for _, tc := range []struct {
		name string
		op   budget.Limits
		want budget.Limits
	}{
		{"operator has none", budget.Limits{}, budget.Limits{MaxRuntimeSeconds: 10, MaxToolCalls: 3, MaxInputTokens: 30, MaxOutputTokens: 20, MaxCostUSD: 0.3}},
		{"operator is higher", budget.Limits{MaxRuntimeSeconds: 99, MaxToolCalls: 99, MaxInputTokens: 99, MaxOutputTokens: 99, MaxCostUSD: 2},
			budget.Limits{MaxRuntimeSeconds: 10, MaxToolCalls: 3, MaxInputTokens: 30, MaxOutputTokens: 20, MaxCostUSD: 0.3}},
		{"operator is lower", budget.Limits{MaxRuntimeSeconds: 1, MaxToolCalls: 1, MaxInputTokens: 1, MaxOutputTokens: 1, MaxCostUSD: 0.1},
			budget.Limits{MaxRuntimeSeconds: 1, MaxToolCalls: 1, MaxInputTokens: 1, MaxOutputTokens: 1, MaxCostUSD: 0.1}},
	} {
		got, err := Limits(tc.op, share)
		if err != nil || got != tc.want {
			t.Errorf("%s: ChildLimits = %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	for name, b := range map[string]*wire.Budget{
		budget.LimitRuntime: {RuntimeExhausted: true}, budget.LimitToolCalls: {ToolCallsExhausted: true},
		budget.LimitInputTokens: {InputTokensExhausted: true}, budget.LimitOutputTokens: {OutputTokensExhausted: true},
		budget.LimitCostUSD: {CostExhausted: true},
	} {
		_, err := Limits(budget.Limits{}, b)
		var be *budget.Error
		if !budget.IsBudget(err) || !asBudget(err, &be) || be.Limit != name {
			t.Errorf("%s exhausted: ChildLimits error %v", name, err)
		}
	}
}

func asBudget(err error, be **budget.Error) bool {
	e, ok := err.(*budget.Error)
	*be = e
	return ok
}

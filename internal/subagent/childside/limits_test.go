package childside

import (
	"testing"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/subagent/wire"
)

func TestLimits(t *testing.T) {
	op := budget.Limits{MaxToolCalls: 5, MaxRuntimeSeconds: 0, MaxCostUSD: 2, MaxOutputTokens: 50}
	got, err := Limits(op, &wire.Budget{MaxToolCalls: 3, MaxRuntimeSeconds: 60, MaxCostUSD: 5, MaxInputTokens: 9})
	if err != nil {
		t.Fatal(err)
	}
	want := budget.Limits{MaxToolCalls: 3, MaxRuntimeSeconds: 60, MaxCostUSD: 2, MaxInputTokens: 9, MaxOutputTokens: 50}
	if got != want {
		t.Fatalf("Limits = %+v, want %+v", got, want)
	}
	if got, _ := Limits(op, nil); got != op {
		t.Fatal("operator mode changed the limits")
	}
	_, err = Limits(op, &wire.Budget{CostExhausted: true, MaxToolCalls: 3})
	if !budget.IsBudget(err) || err.Error() != "execution budget exceeded: cost_usd observed $0.000000 (limit $0.000000)" {
		t.Fatalf("exhausted: %v", err)
	}
}

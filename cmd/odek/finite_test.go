package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// A task file's budget cannot carry a limit that is not finite: 1e400 would
// be +Inf, no limit for the child (config files, -c and flags are covered
// by internal/config: TestNonFiniteNumbersRefused).
func TestTaskFileRefusesNonFiniteBudget(t *testing.T) {
	for _, v := range []string{"1e400", "-1e400", "1e309"} {
		data := fmt.Sprintf(`{"protocol": %d, "goal": "g", "budget": {"max_cost_usd": %s}}`, wire.Protocol, v)
		_, err := wire.ParseTask([]byte(data))
		var te *wire.TaskError
		if !errors.As(err, &te) {
			t.Errorf("max_cost_usd %s: err = %v, want a task error", v, err)
		}
	}
	ok := fmt.Sprintf(`{"protocol": %d, "goal": "g", "budget": {"max_cost_usd": 0.5}}`, wire.Protocol)
	if task, err := wire.ParseTask([]byte(ok)); err != nil || task.Budget.MaxCostUSD != 0.5 {
		t.Errorf("a finite budget: %v", err)
	}
}

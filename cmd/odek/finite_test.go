package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/odek-run/odek/internal/subagent"
)

// A task file's budget cannot carry a limit that is not finite: 1e400 would
// be +Inf, no limit for the child (config files, -c and flags are covered
// by internal/config: TestNonFiniteNumbersRefused).
func TestTaskFileRefusesNonFiniteBudget(t *testing.T) {
	for _, v := range []string{"1e400", "-1e400", "1e309"} {
		data := fmt.Sprintf(`{"protocol": %d, "goal": "g", "budget": {"max_cost_usd": %s}}`, subagent.Protocol, v)
		_, err := subagent.ParseTask([]byte(data))
		var te *subagent.TaskError
		if !errors.As(err, &te) {
			t.Errorf("max_cost_usd %s: err = %v, want a task error", v, err)
		}
	}
	ok := fmt.Sprintf(`{"protocol": %d, "goal": "g", "budget": {"max_cost_usd": 0.5}}`, subagent.Protocol)
	if task, err := subagent.ParseTask([]byte(ok)); err != nil || task.Budget.MaxCostUSD != 0.5 {
		t.Errorf("a finite budget: %v", err)
	}
}

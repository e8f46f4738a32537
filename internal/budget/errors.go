package budget

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/odek-run/odek/internal/errclass"
)

// Limit names, as they appear in Error.Limit and in budget_exceeded events.
const (
	LimitRuntime      = "runtime"
	LimitToolCalls    = "tool_calls"
	LimitInputTokens  = "input_tokens"
	LimitOutputTokens = "output_tokens"
	LimitCostUSD      = "cost_usd"
)

// Error reports an exhausted execution budget. The CLI maps any *Error in an
// error chain to exit code 4, so it must stay distinguishable from model and
// tool failures: test with IsBudget or errors.As, never by message.
type Error struct {
	Limit    string  // one of the Limit* names
	Observed float64 // value that tripped the limit (USD for cost_usd)
	Max      float64 // the configured limit (USD for cost_usd)
}

// Error renders the exact message of the spec. Counts are printed as integers;
// cost is printed in dollars with six decimals (micro-USD resolution).
func (e *Error) Error() string {
	if e.Limit == LimitCostUSD {
		return fmt.Sprintf("execution budget exceeded: cost_usd observed $%.6f (limit $%.6f)", e.Observed, e.Max)
	}
	return "execution budget exceeded: " + e.Limit + " observed " + formatCount(e.Observed) +
		" (limit " + formatCount(e.Max) + ")"
}

// ErrorClass implements the events package's classifier interface, so a budget
// stop is reported as error_class "execution_budget" without events importing
// this package.
func (e *Error) ErrorClass() string { return errclass.ExecutionBudget }

// IsBudget reports whether err's chain holds a budget *Error.
func IsBudget(err error) bool {
	var be *Error
	return errors.As(err, &be)
}

// formatCount prints whole numbers without a fraction or exponent.
func formatCount(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

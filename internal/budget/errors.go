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
	Observed float64 // value that tripped the limit, in Unit
	Max      float64 // the configured limit, in Unit
	// Ran is, for tool_calls, the calls that had run when the batch that
	// would pass the limit was refused (Observed > Max): Observed-Ran calls
	// never started. An exhausted budget (Observed = Max) ran all of them.
	Ran int64
	// Overrun marks a use found past the limit after the fact (what
	// sub-agents charged back): everything observed ran.
	Overrun bool
	// Estimated marks a token or cost figure that is, at least in part,
	// odek's estimate: the provider reported no usage (Usage.Estimated).
	Estimated bool
}

// Units of the limits, as Unit and the budget_exceeded event name them.
const (
	UnitSeconds = "seconds"
	UnitCalls   = "calls"
	UnitTokens  = "tokens"
	UnitUSD     = "usd"
)

// UnitOf is the unit a limit is measured in ("" for an unknown name).
func UnitOf(limit string) string {
	switch limit {
	case LimitRuntime:
		return UnitSeconds
	case LimitToolCalls:
		return UnitCalls
	case LimitInputTokens, LimitOutputTokens:
		return UnitTokens
	case LimitCostUSD:
		return UnitUSD
	}
	return ""
}

// Unit is the unit Observed and Max are in.
func (e *Error) Unit() string { return UnitOf(e.Limit) }

// Error renders "execution budget exceeded: <limit> observed <n> (limit
// <m>)" with both numbers in their unit: whole seconds as "61s", counts as
// "5 calls" or "1200 tokens", cost in dollars with six decimals (micro-USD
// resolution). A tool-call stop adds how many calls ran.
func (e *Error) Error() string {
	msg := "execution budget exceeded: " + e.Limit + " observed " + e.quantity(e.Observed) +
		" (limit " + e.quantity(e.Max) + ")"
	if e.Estimated {
		msg += " by estimate, the provider having reported no usage"
	}
	if e.Overrun {
		return msg + ": reached with what sub-agents charged back"
	}
	if e.Limit == LimitToolCalls && e.Observed > e.Max {
		batch := formatCount(e.Observed - float64(e.Ran))
		if e.Ran == 0 {
			msg += ": none ran, the batch of " + batch + " was not started"
		} else {
			msg += fmt.Sprintf(": %d ran, the batch of %s more was not started", e.Ran, batch)
		}
	}
	return msg
}

// quantity prints v in the limit's unit.
func (e *Error) quantity(v float64) string {
	switch e.Limit {
	case LimitCostUSD:
		return fmt.Sprintf("$%.6f", v)
	case LimitRuntime:
		return formatCount(v) + "s"
	case LimitToolCalls:
		return plural(v, "call")
	case LimitInputTokens, LimitOutputTokens:
		return plural(v, "token")
	}
	return formatCount(v)
}

func plural(v float64, word string) string {
	if v == 1 {
		return "1 " + word
	}
	return formatCount(v) + " " + word + "s"
}

// EventData is the budget_exceeded event's data and the run report's
// budget_exceeded object: the same numbers as Error, with their unit, and
// for tool_calls the calls that ran.
func (e *Error) EventData() map[string]any {
	d := map[string]any{"limit_name": e.Limit, "observed": e.Observed, "limit": e.Max, "unit": e.Unit()}
	if e.Limit == LimitToolCalls {
		d["calls_ran"] = e.callsRan()
	}
	if e.Estimated {
		d["usage_estimated"] = true
	}
	return d
}

// callsRan is the tool calls that ran: Ran when a batch passing the limit
// was refused, else (a budget found exhausted, observed = limit) all of them.
func (e *Error) callsRan() int64 {
	if e.Observed > e.Max && !e.Overrun {
		return e.Ran
	}
	return int64(e.Observed)
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

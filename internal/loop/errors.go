package loop

import (
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/errclass"
)

// PanicError is a tool that panicked; the model sees it as a failed call.
type PanicError struct {
	Tool  string
	Value any
}

func (e *PanicError) Error() string { return fmt.Sprintf("tool %q panicked: %v", e.Tool, e.Value) }

// ErrorClass implements events.Classifier.
func (e *PanicError) ErrorClass() string { return errclass.ToolError }

// MaxIterationsError ends a run whose iteration cap was hit and whose summary
// side call failed or asked for more tools.
type MaxIterationsError struct {
	Iterations int
	Err        error // why the summary failed, if it did
}

func (e *MaxIterationsError) Error() string {
	return fmt.Sprintf("reached max iterations (%d) without final answer", e.Iterations)
}

func (e *MaxIterationsError) Unwrap() error { return e.Err }

// ErrorClass implements events.Classifier.
func (e *MaxIterationsError) ErrorClass() string { return errclass.Error }

// TimeBudgetError ends a run the runtime budget stopped before it had an
// answer. It wraps the budget error, so the run's exit code, error_class and
// budget_exceeded event are the budget's.
type TimeBudgetError struct {
	Iterations int // iterations begun before the stop
	Err        *budget.Error
}

func (e *TimeBudgetError) Error() string {
	return fmt.Sprintf("time budget reached after %d %s without final answer: %v",
		e.Iterations, pluralIter(e.Iterations), e.Err)
}

func (e *TimeBudgetError) Unwrap() error { return e.Err }

func pluralIter(n int) string {
	if n == 1 {
		return "iteration"
	}
	return "iterations"
}

// timeUp wraps a runtime budget stop in a TimeBudgetError naming n
// iterations; any other error, or one already wrapped, is returned as is.
func timeUp(n int, err error) error {
	var be *budget.Error
	var te *TimeBudgetError
	if !errors.As(err, &be) || be.Limit != budget.LimitRuntime || be.Overrun || errors.As(err, &te) {
		return err
	}
	return &TimeBudgetError{Iterations: n, Err: be}
}

// Reasons an AnswerError gives; test with errors.Is.
var (
	// ErrEmptyAnswer is a reply with no text and no tool calls, twice.
	ErrEmptyAnswer = errors.New("model returned an empty answer")
	// ErrContentFilter is a reply the provider's content filter stopped.
	ErrContentFilter = errors.New("model answer blocked by the provider's content filter")
)

// AnswerError is a model reply the loop cannot use: an empty answer or a
// content-filter stop. It is a model error (exit 1).
type AnswerError struct {
	Iteration int
	Err       error  // ErrEmptyAnswer or ErrContentFilter
	Detail    string // what was seen
}

func (e *AnswerError) Error() string {
	return fmt.Sprintf("%v: %s (iteration %d)", e.Err, e.Detail, e.Iteration)
}

func (e *AnswerError) Unwrap() error { return e.Err }

// ErrorClass implements events.Classifier: the provider's reply failed.
func (e *AnswerError) ErrorClass() string { return errclass.ProviderError }

// CutToolCallError is the result of a tool call whose arguments were cut off
// at the output-token limit; the call is not run.
type CutToolCallError struct{ Tool string }

func (e *CutToolCallError) Error() string {
	return fmt.Sprintf("tool call %q was cut off: the reply reached the output-token limit (finish_reason \"length\") "+
		"before its arguments were complete; call it again with shorter arguments", e.Tool)
}

// errToolCallsInSummary is a summary reply that asked for more tools.
var errToolCallsInSummary = errors.New("summary reply contained tool calls")

// UnknownToolError is a call of a tool the run does not have.
type UnknownToolError struct{ Tool string }

func (e *UnknownToolError) Error() string { return fmt.Sprintf("tool %q not found", e.Tool) }

// BadArgumentsError is a call whose arguments are not JSON; the tool is not
// called.
type BadArgumentsError struct{ Tool, Args string }

func (e *BadArgumentsError) Error() string {
	return fmt.Sprintf("tool %q: arguments are not valid JSON: %.200q", e.Tool, e.Args)
}

// LoopError ends a run the loop breaker stopped (repeats.go): the model
// called one tool with the same arguments and got the same result Count
// times (Kind "repeat"), or the tool failed Count times in a row (Kind names
// how: "denied", "timeout", "mcp_error", ...). It is a model error (exit 1).
type LoopError struct {
	Tool, CallID, Detail, Kind string
	Count, Limit               int
}

func (e *LoopError) Error() string {
	what := e.Tool
	if e.Detail != "" {
		what += ` "` + e.Detail + `"`
	}
	if e.Kind == loopRepeat {
		return fmt.Sprintf("loop detected: the model called %s %d times with the same arguments and got the same result (loop_breaker.stop_after %d)",
			what, e.Count, e.Limit)
	}
	return fmt.Sprintf("loop detected: %s failed %d times in a row (%s; loop_breaker.stop_after %d)", what, e.Count, e.Kind, e.Limit)
}

// ErrorClass implements events.Classifier.
func (e *LoopError) ErrorClass() string { return errclass.LoopDetected }

// Data is the stop as the loop_detected event and the run report give it.
func (e *LoopError) Data() map[string]any {
	d := map[string]any{"tool": e.Tool, "kind": e.Kind, "count": e.Count, "limit": e.Limit}
	if e.CallID != "" {
		d["call_id"] = e.CallID
	}
	if e.Detail != "" {
		d["detail"] = e.Detail
	}
	return d
}

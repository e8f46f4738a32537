package loop

import (
	"errors"
	"fmt"

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

// errToolCallsInSummary is a summary reply that asked for more tools.
var errToolCallsInSummary = errors.New("summary reply contained tool calls")

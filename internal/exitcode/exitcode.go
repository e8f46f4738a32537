// Package exitcode is the one table from error class to exit code
// (docs/DECISIONS.md, DECISION 5), which the process's exit and the run
// report's exit_code both read, and the cause a signal gives the end of a
// run (ErrInterrupted, exit 130).
package exitcode

import (
	"context"
	"errors"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
)

// Exit codes (docs/DECISIONS.md, DECISION 5).
const (
	OK          = 0
	Error       = 1 // task, model or tool error
	Timeout     = 2
	Setup       = 3 // bad flags, invalid config, MCP server that fails to start or is not approved
	Budget      = 4 // an execution budget was exhausted
	Interrupted = 130
)

// codes is the one table from error class to exit code. Every class in
// errclass.All has a row (a test checks it); an error's class is the one
// its events and run report name (events.ErrorClass), see Class.
var codes = map[string]int{
	errclass.SetupError:       Setup,
	errclass.ExecutionBudget:  Budget,
	errclass.DeadlineExceeded: Timeout,
	errclass.ContextCanceled:  Interrupted,
	errclass.ToolError:        Error,
	errclass.Error:            Error,
	errclass.RateLimited:      Error,
	errclass.ProviderAuth:     Error,
	errclass.ProviderError:    Error,
	errclass.MCPError:         Error,
	errclass.PolicyDenied:     Error, // --fail-on-denial
	errclass.Stalled:          Timeout,
	errclass.LoopDetected:     Error,
}

// ForClass is the exit code of an error class; false for a class the
// table does not know.
func ForClass(class string) (int, bool) {
	code, ok := codes[class]
	return code, ok
}

// Of is the one place errors become exit codes: a code decided elsewhere
// (a *CodeError), else the table's row of the error's class. ctx is the
// signal context.
func Of(ctx context.Context, err error) int {
	var ce *CodeError
	switch {
	case err == nil:
		return OK
	case errors.As(err, &ce):
		return ce.Code
	}
	if code, ok := codes[Class(ctx, err)]; ok {
		return code
	}
	return Error
}

// Class is the class that decides err's exit code. It is the class the
// events report (the outermost classified error), with two exceptions that
// say why the run stopped rather than what failed last: a budget error
// anywhere in the chain wins, and a cancellation is an interrupt only when
// the signal context caused it; one odek made itself is an error.
func Class(ctx context.Context, err error) string {
	switch {
	case budget.IsBudget(err):
		return errclass.ExecutionBudget
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return errclass.ContextCanceled
	}
	if c := events.ErrorClass(err); c != errclass.ContextCanceled {
		return c
	}
	return errclass.Error
}

package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
)

// Exit codes (DECISION 5).
const (
	exitOK          = 0
	exitError       = 1 // task, model or tool error
	exitTimeout     = 2
	exitSetup       = 3 // bad flags, invalid config, MCP server that fails to start or is not approved
	exitBudget      = 4 // an execution budget was exhausted
	exitInterrupted = 130
)

// setupError marks an error as a setup or contract problem (exit 3).
type setupError struct{ err error }

func (e *setupError) Error() string      { return e.err.Error() }
func (e *setupError) Unwrap() error      { return e.err }
func (e *setupError) ErrorClass() string { return errclass.SetupError }

// asSetup wraps err (if any) as a setup error.
func asSetup(err error) error {
	if err == nil {
		return nil
	}
	return &setupError{err}
}

// codeError carries an exit code decided elsewhere (odek subagent maps its
// result to 0/1/2/4 itself, BEHAVIOR §8.2). A nil err prints nothing.
type codeError struct {
	code int
	err  error
}

func (e *codeError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *codeError) Unwrap() error { return e.err }

// exitCode is the one place errors become exit codes. ctx is the signal
// context: a cancellation it caused is an interrupt.
func exitCode(ctx context.Context, err error) int {
	var se *setupError
	var ce *codeError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ce):
		return ce.code
	case budget.IsBudget(err):
		return exitBudget
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return exitInterrupted
	case errors.As(err, &se), errors.Is(err, config.ErrSetup):
		return exitSetup
	case errors.Is(err, context.DeadlineExceeded):
		return exitTimeout
	default:
		return exitError
	}
}

// reportError prints err as "odek: <err>" on stderr. Error text carries
// untrusted parts (server stderr tails, LLM error bodies), so it is made
// safe for a terminal first.
func reportError(ios *IOStreams, err error) {
	var ce *codeError
	if err == nil || errors.As(err, &ce) && ce.err == nil {
		return
	}
	fmt.Fprintf(ios.ErrOut, "odek: %s\n", termText(err.Error()))
}

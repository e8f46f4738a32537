package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/config"
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
func (e *setupError) ErrorClass() string { return "setup_error" }

// asSetup wraps err (if any) as a setup error.
func asSetup(err error) error {
	if err == nil {
		return nil
	}
	return &setupError{err}
}

// exitCodeError carries a code decided by a command that already reported
// its outcome (for example a run report on stdout).
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string { return e.err.Error() }
func (e *exitCodeError) Unwrap() error { return e.err }

// exitCode is the one place errors become exit codes. ctx is the signal
// context: a cancellation it caused is an interrupt.
func exitCode(ctx context.Context, err error) int {
	var ce *exitCodeError
	var se *setupError
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

// reportedError is an error the command already told the user about.
type reportedError struct{ error }

func (e reportedError) Unwrap() error { return e.error }

// reportError prints err as "odek: <err>" on stderr, once.
func reportError(ios *IOStreams, err error) {
	var rep reportedError
	if err == nil || errors.As(err, &rep) {
		return
	}
	fmt.Fprintf(ios.ErrOut, "odek: %v\n", err)
}

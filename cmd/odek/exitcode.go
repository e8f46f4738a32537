package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
)

// Exit codes (docs/DECISIONS.md, DECISION 5).
const (
	exitOK          = 0
	exitError       = 1 // task, model or tool error
	exitTimeout     = 2
	exitSetup       = 3 // bad flags, invalid config, MCP server that fails to start or is not approved
	exitBudget      = 4 // an execution budget was exhausted
	exitInterrupted = 130
)

// exitCodes is the one table from error class to exit code. Every class in
// errclass.All has a row (a test checks it); an error's class is the one
// its events and run report name (events.ErrorClass), see exitClass.
var exitCodes = map[string]int{
	errclass.SetupError:       exitSetup,
	errclass.ExecutionBudget:  exitBudget,
	errclass.DeadlineExceeded: exitTimeout,
	errclass.ContextCanceled:  exitInterrupted,
	errclass.ToolError:        exitError,
	errclass.Error:            exitError,
	errclass.RateLimited:      exitError,
	errclass.ProviderAuth:     exitError,
	errclass.ProviderError:    exitError,
	errclass.MCPError:         exitError,
	errclass.PolicyDenied:     exitError, // --fail-on-denial
	errclass.Stalled:          exitTimeout,
	errclass.LoopDetected:     exitError,
}

// codeError carries an exit code decided elsewhere (odek subagent maps its
// result to 0/1/2/4 itself, docs/SUBAGENTS.md). A nil err prints nothing.
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

// exitCode is the one place errors become exit codes: a code decided
// elsewhere, else the exitCodes row of the error's class. ctx is the signal
// context.
func exitCode(ctx context.Context, err error) int {
	var ce *codeError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ce):
		return ce.code
	}
	if code, ok := exitCodes[exitClass(ctx, err)]; ok {
		return code
	}
	return exitError
}

// exitClass is the class that decides err's exit code. It is the class the
// events report (the outermost classified error), with two exceptions that
// say why the run stopped rather than what failed last: a budget error
// anywhere in the chain wins, and a cancellation is an interrupt only when
// the signal context caused it; one odek made itself is an error.
func exitClass(ctx context.Context, err error) string {
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

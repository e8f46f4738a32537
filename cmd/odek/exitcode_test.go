package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/config"
)

func TestExitCode(t *testing.T) {
	signalled, stop := context.WithCancel(context.Background())
	stop() // the signal context after Ctrl-C
	quiet := context.Background()
	budgetErr := &budget.Error{Limit: budget.LimitToolCalls, Observed: 3, Max: 2}
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"success", quiet, nil, exitOK},
		{"task error", quiet, errors.New("tool failed"), exitError},
		{"budget", quiet, fmt.Errorf("run: %w", budgetErr), exitBudget},
		{"budget wins over a signal", signalled, fmt.Errorf("%w: %w", budgetErr, context.Canceled), exitBudget},
		{"interrupt", signalled, fmt.Errorf("iteration 2: %w", context.Canceled), exitInterrupted},
		// A cancellation odek made itself (not from the signal) is not an interrupt.
		{"internal cancellation", quiet, fmt.Errorf("mcp: %w", context.Canceled), exitError},
		{"signal but another error", signalled, errors.New("model error"), exitError},
		{"setup", quiet, asSetup(errors.New("server failed to start")), exitSetup},
		{"config setup", quiet, fmt.Errorf("load: %w", config.ErrSetup), exitSetup},
		// An MCP server that times out while starting is a setup error, not a timeout.
		{"startup timeout", quiet, asSetup(fmt.Errorf("initialize: %w", context.DeadlineExceeded)), exitSetup},
		{"setup interrupted by a signal", signalled, asSetup(fmt.Errorf("initialize: %w", context.Canceled)), exitInterrupted},
		{"timeout", quiet, fmt.Errorf("call: %w", context.DeadlineExceeded), exitTimeout},
		{"code decided elsewhere", quiet, &codeError{code: exitTimeout}, exitTimeout},
		{"code decided elsewhere wins", signalled, &codeError{code: exitBudget, err: context.Canceled}, exitBudget},
	}
	for _, tt := range tests {
		if got := exitCode(tt.ctx, tt.err); got != tt.want {
			t.Errorf("%s: exitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
	if asSetup(nil) != nil {
		t.Error("asSetup(nil) is not nil")
	}
}

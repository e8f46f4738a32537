package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// classed is an error of a given class, for the classes no package here
// makes without a live peer.
type classed struct{ class string }

func (e classed) Error() string      { return "a " + e.class }
func (e classed) ErrorClass() string { return e.class }

// TestExitCodeTableCoversEveryClass keeps the table and errclass.All in
// step: a new class must be given its exit code here.
func TestExitCodeTableCoversEveryClass(t *testing.T) {
	if len(exitCodes) != len(errclass.All) {
		t.Errorf("exitCodes has %d rows, errclass.All %d classes", len(exitCodes), len(errclass.All))
	}
	want := map[string]int{
		errclass.SetupError: exitSetup, errclass.ExecutionBudget: exitBudget,
		errclass.DeadlineExceeded: exitTimeout, errclass.ContextCanceled: exitInterrupted,
		errclass.Stalled: exitTimeout, // a hung run is a timeout, however it hung
	}
	for _, c := range errclass.All {
		code, ok := exitCodes[c]
		if !ok {
			t.Errorf("class %q has no exit code", c)
			continue
		}
		w, special := want[c]
		if !special {
			w = exitError
		}
		if code != w {
			t.Errorf("class %q → %d, want %d", c, code, w)
		}
		// Through exitCode, wrapped as callers wrap: the class decides.
		ctx := context.Background()
		if c == errclass.ContextCanceled {
			var stop context.CancelFunc
			ctx, stop = context.WithCancel(ctx)
			stop()
		}
		err := fmt.Errorf("step: %w", classed{c})
		if c == errclass.ContextCanceled {
			err = fmt.Errorf("step: %w", context.Canceled)
		}
		if got := exitCode(ctx, err); got != w {
			t.Errorf("exitCode(%s) = %d, want %d", c, got, w)
		}
	}
}

// TestExitCodeOfRealErrors checks the typed errors of each package reach
// the right row through their own class, with no wrapper in cmd/odek.
func TestExitCodeOfRealErrors(t *testing.T) {
	quiet := context.Background()
	badStore := filepath.Join(t.TempDir(), "approvals.json")
	if err := os.WriteFile(badStore, []byte("[1]"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, storeErr := approval.OpenStore(badStore)
	_, _, startErr := mcpclient.Start(quiet, mcpclient.StartOptions{}) // no Gate
	_, taskErr := wire.ParseTask([]byte("{"))
	cfg := &config.Config{BaseURL: "https://api.example.com/v1"}
	keyErr := cfg.RequireAPIKey()
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"approvals file", storeErr, exitSetup},
		{"mcp start", startErr, exitSetup},
		{"task file", taskErr, exitSetup},
		{"no API key", keyErr, exitSetup},
		{"config parse", &config.ParseError{File: "odek.json", Line: 1, Column: 1, Err: errors.New("bad")}, exitSetup},
		{"budget", &budget.Error{Limit: budget.LimitToolCalls, Observed: 3, Max: 2}, exitBudget},
		{"provider auth", &llm.AuthError{Status: http.StatusUnauthorized}, exitError},
		{"rate limited", &llm.RetryError{Attempts: 3, Err: &llm.StatusError{Status: http.StatusTooManyRequests}}, exitError},
		{"provider error", &llm.StatusError{Status: http.StatusBadGateway}, exitError},
		{"tool panic", &loop.PanicError{Tool: "x", Value: 1}, exitError},
		{"iteration cap", &loop.MaxIterationsError{Iterations: 3}, exitError},
		{"stalled", &liveness.StallError{Idle: time.Minute, Limit: time.Minute}, exitTimeout},
		{"loop", &loop.LoopError{Tool: "shell", Kind: "repeat", Count: 10, Limit: 10}, exitError},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Fatalf("%s: the package returned no error to test", tt.name)
		}
		if got := exitCode(quiet, fmt.Errorf("wrapped: %w", tt.err)); got != tt.want {
			t.Errorf("%s (%s): exitCode = %d, want %d", tt.name, events.ErrorClass(tt.err), got, tt.want)
		}
	}
}

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
		{"budget inside another class", quiet, &llm.RetryError{Attempts: 1, Err: budgetErr}, exitBudget},
		{"interrupt", signalled, fmt.Errorf("iteration 2: %w", context.Canceled), exitInterrupted},
		// A cancellation odek made itself (not from the signal) is not an interrupt.
		{"internal cancellation", quiet, fmt.Errorf("mcp: %w", context.Canceled), exitError},
		{"internal cancellation, classed", quiet, classed{errclass.ContextCanceled}, exitError},
		{"signal but another error", signalled, errors.New("model error"), exitError},
		{"setup", quiet, errclass.Wrap(errclass.SetupError, errors.New("server failed to start")), exitSetup},
		{"setup, formatted", quiet, errclass.Wrap(errclass.SetupError, fmt.Errorf("bad %s", "flag")), exitSetup},
		{"config setup", quiet, fmt.Errorf("load: %w", &config.SetupError{Msg: "bad"}), exitSetup},
		// An MCP server that times out while starting is a setup error, not a timeout.
		{"startup timeout", quiet, errclass.Wrap(errclass.SetupError, fmt.Errorf("initialize: %w", context.DeadlineExceeded)), exitSetup},
		{"setup interrupted by a signal", signalled, errclass.Wrap(errclass.SetupError, fmt.Errorf("initialize: %w", context.Canceled)), exitInterrupted},
		{"timeout", quiet, fmt.Errorf("call: %w", context.DeadlineExceeded), exitTimeout},
		{"code decided elsewhere", quiet, &codeError{code: exitTimeout}, exitTimeout},
		{"code decided elsewhere wins", signalled, &codeError{code: exitBudget, err: context.Canceled}, exitBudget},
	}
	for _, tt := range tests {
		if got := exitCode(tt.ctx, tt.err); got != tt.want {
			t.Errorf("%s: exitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
}

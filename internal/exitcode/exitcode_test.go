package exitcode

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
	if len(codes) != len(errclass.All) {
		t.Errorf("codes has %d rows, errclass.All %d classes", len(codes), len(errclass.All))
	}
	want := map[string]int{
		errclass.SetupError: Setup, errclass.ExecutionBudget: Budget,
		errclass.DeadlineExceeded: Timeout, errclass.ContextCanceled: Interrupted,
		errclass.Stalled: Timeout, // a hung run is a timeout, however it hung
	}
	for _, c := range errclass.All {
		code, ok := codes[c]
		if !ok {
			t.Errorf("class %q has no exit code", c)
			continue
		}
		w, special := want[c]
		if !special {
			w = Error
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
		if got := Of(ctx, err); got != w {
			t.Errorf("Of(%s) = %d, want %d", c, got, w)
		}
	}
}

// TestExitCodeOfRealErrors checks the typed errors of each package reach
// the right row through their own class, with no wrapper.
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
		{"approvals file", storeErr, Setup},
		{"mcp start", startErr, Setup},
		{"task file", taskErr, Setup},
		{"no API key", keyErr, Setup},
		{"config parse", &config.ParseError{File: "odek.json", Line: 1, Column: 1, Err: errors.New("bad")}, Setup},
		{"budget", &budget.Error{Limit: budget.LimitToolCalls, Observed: 3, Max: 2}, Budget},
		{"provider auth", &llm.AuthError{Status: http.StatusUnauthorized}, Error},
		{"rate limited", &llm.RetryError{Attempts: 3, Err: &llm.StatusError{Status: http.StatusTooManyRequests}}, Error},
		{"provider error", &llm.StatusError{Status: http.StatusBadGateway}, Error},
		{"tool panic", &loop.PanicError{Tool: "x", Value: 1}, Error},
		{"iteration cap", &loop.MaxIterationsError{Iterations: 3}, Error},
		{"stalled", &liveness.StallError{Idle: time.Minute, Limit: time.Minute}, Timeout},
		{"loop", &loop.LoopError{Tool: "shell", Kind: "repeat", Count: 10, Limit: 10}, Error},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Fatalf("%s: the package returned no error to test", tt.name)
		}
		if got := Of(quiet, fmt.Errorf("wrapped: %w", tt.err)); got != tt.want {
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
		{"success", quiet, nil, OK},
		{"task error", quiet, errors.New("tool failed"), Error},
		{"budget", quiet, fmt.Errorf("run: %w", budgetErr), Budget},
		{"budget wins over a signal", signalled, fmt.Errorf("%w: %w", budgetErr, context.Canceled), Budget},
		{"budget inside another class", quiet, &llm.RetryError{Attempts: 1, Err: budgetErr}, Budget},
		{"interrupt", signalled, fmt.Errorf("iteration 2: %w", context.Canceled), Interrupted},
		// A cancellation odek made itself (not from the signal) is not an interrupt.
		{"internal cancellation", quiet, fmt.Errorf("mcp: %w", context.Canceled), Error},
		{"internal cancellation, classed", quiet, classed{errclass.ContextCanceled}, Error},
		{"signal but another error", signalled, errors.New("model error"), Error},
		{"setup", quiet, errclass.Wrap(errclass.SetupError, errors.New("server failed to start")), Setup},
		{"setup, formatted", quiet, errclass.Wrap(errclass.SetupError, fmt.Errorf("bad %s", "flag")), Setup},
		{"config setup", quiet, fmt.Errorf("load: %w", &config.SetupError{Msg: "bad"}), Setup},
		// An MCP server that times out while starting is a setup error, not a timeout.
		{"startup timeout", quiet, errclass.Wrap(errclass.SetupError, fmt.Errorf("initialize: %w", context.DeadlineExceeded)), Setup},
		{"setup interrupted by a signal", signalled, errclass.Wrap(errclass.SetupError, fmt.Errorf("initialize: %w", context.Canceled)), Interrupted},
		{"timeout", quiet, fmt.Errorf("call: %w", context.DeadlineExceeded), Timeout},
		{"code decided elsewhere", quiet, &CodeError{Code: Timeout}, Timeout},
		{"code decided elsewhere wins", signalled, &CodeError{Code: Budget, Err: context.Canceled}, Budget},
	}
	for _, tt := range tests {
		if got := Of(tt.ctx, tt.err); got != tt.want {
			t.Errorf("%s: exitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// A signal's cancellation reads "interrupted" however it was wrapped; it
// is still a cancellation (exit 130), and other errors are left alone.
func TestInterruptedText(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	wrapped := fmt.Errorf("iteration 1: llm: %w", context.Canceled)
	if got := Shown(ctx, wrapped); got != wrapped {
		t.Errorf("before any signal: %v", got)
	}
	cancel(ErrInterrupted)
	if got := Shown(ctx, wrapped); got == nil || got.Error() != "interrupted" || !errors.Is(got, context.Canceled) {
		t.Errorf("after the signal: %v", got)
	}
	if code := Of(ctx, Shown(ctx, wrapped)); code != Interrupted {
		t.Errorf("exit code %d, want %d", code, Interrupted)
	}
	other := errors.New("tool failed")
	if got := Shown(ctx, other); got != other {
		t.Errorf("a non-cancellation became %v", got)
	}
	if Shown(ctx, nil) != nil {
		t.Error("nil became an error")
	}
}

// Silent is a CodeError without an error to print, however wrapped.
func TestSilent(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&CodeError{Code: Timeout}, true},
		{fmt.Errorf("child: %w", &CodeError{Code: Budget}), true},
		{&CodeError{Code: Budget, Err: errors.New("budget")}, false},
		{errors.New("plain"), false},
		{nil, false},
	} {
		if got := Silent(tc.err); got != tc.want {
			t.Errorf("Silent(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The deadlines of a tool call (DECISION 27): timeout_seconds bounds the
// call whole, whatever progress the server reports and across all its
// input_required rounds; idle_timeout_seconds, when set, fails a call that
// hears nothing sooner, and is what progress restarts.

func progressCall(t *testing.T, c *Client, steps, ms int) (*callResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.callToolResult(ctx, "progress", json.RawMessage(fmt.Sprintf(`{"steps":%d,"ms":%d}`, steps, ms)))
}

// Progress every 0.3 s for 3.3 s does not carry a call past its 1 s
// timeout_seconds; the server is told, and stays usable.
func TestProgressDoesNotExtendTheTimeout(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"modern", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c, err := eraClient(t, mode, ServerConfig{TimeoutSeconds: 1}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = progressCall(t, c, 10, 300)
			want := "mcpclient era: tool progress: no response within 1s (timeout); request cancelled, server kept running"
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant %s", err, want)
			}
			var e *opError
			if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &e) || e.ErrorClass() != classDeadline {
				t.Errorf("a timeout must be a deadline: %v", err)
			}
			r, err := eraCall(t, c, "seen")
			if err != nil || !strings.Contains(r.Text, "notifications/cancelled") {
				t.Errorf("server kept running and was told of the cancel: %v %v", r, err)
			}
		})
	}
}

// Three input_required rounds of 0.6 s each share the call's 1 s: the
// call fails, where each round alone would have been in time.
func TestInputRoundsShareTheTimeout(t *testing.T) {
	t.Parallel()
	cfg := ServerConfig{TimeoutSeconds: 1, Elicitation: map[string]json.RawMessage{"name": json.RawMessage(`"octocat"`)}}
	c, err := eraClient(t, "modern", cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = c.callToolResult(ctx, "ask_rounds", json.RawMessage(`{"steps":2,"ms":600}`))
	want := "mcpclient era: tool ask_rounds: no response within 1s (timeout); request cancelled, server kept running"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	// The same rounds, quick, complete: only the shared deadline failed it.
	r, err := c.callToolResult(ctx, "ask_rounds", json.RawMessage(`{"steps":2,"ms":0}`))
	if err != nil || !strings.Contains(r.Text, "complete after 2 rounds") {
		t.Errorf("quick rounds: %v %+v", err, r)
	}
}

// With idle_timeout_seconds, progress keeps a call alive up to
// timeout_seconds, and a call that goes quiet fails after the idle time.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"modern", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var ns notices
			c, err := eraClient(t, mode, ServerConfig{TimeoutSeconds: 30, IdleTimeoutSeconds: 1}, Options{OnNotice: ns.add})
			if err != nil {
				t.Fatal(err)
			}
			// 2.8 s in all, never 1 s without a word.
			r, err := progressCall(t, c, 6, 400)
			if err != nil {
				t.Fatalf("a call that reports progress failed: %v", err)
			}
			if !strings.Contains(r.Text, `done after "odek-1"`) {
				t.Errorf("result %q: the server did not get odek's progress token", r.Text)
			}
			ns.mu.Lock()
			if len(ns.got) < 2 || ns.got[0].Kind != NoticeProgress || ns.got[0].Tool != "progress" || ns.got[0].ProgressLine() != "1/6" {
				t.Errorf("notices %+v", ns.got)
			}
			if len(ns.got) > 4 {
				t.Errorf("%d progress notices in 2.8 s: not throttled to one a second", len(ns.got))
			}
			ns.mu.Unlock()
			// Quiet for 1.5 s: the idle deadline ends it.
			_, err = progressCall(t, c, 0, 1500)
			want := "mcpclient era: tool progress: no progress within 1s (idle_timeout_seconds); request cancelled, server kept running"
			if err == nil || err.Error() != want {
				t.Errorf("quiet call: err = %v\nwant %s", err, want)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("an idle timeout must be a deadline: %v", err)
			}
		})
	}
}

// The caller's deadline, when it comes first, is the one the error names.
func TestCallerDeadlineFirst(t *testing.T) {
	t.Parallel()
	c, err := eraClient(t, "modern", ServerConfig{TimeoutSeconds: 30}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = c.callToolResult(ctx, "progress", json.RawMessage(`{"steps":0,"ms":2000}`))
	var te *timeoutError
	if !errors.As(err, &te) || te.Bound != "" || te.Timeout > 500*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}

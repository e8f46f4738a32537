package llm_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/llm"
)

// An endpoint that goes silent gets one more attempt, not three: a hung
// provider ends the call after two timeouts, whatever MaxAttempts allows.
// Other failures between them keep their retries.
func TestSilentEndpointIsRetriedOnce(t *testing.T) {
	t.Parallel()
	short := llm.Timeouts{FirstByte: 200 * time.Millisecond, Idle: 200 * time.Millisecond}
	for _, tc := range []struct {
		name     string
		turns    []fakellm.Turn
		attempts int
		phase    string
	}{
		{"hung", []fakellm.Turn{{Fault: fakellm.FaultHang}, {Fault: fakellm.FaultHang}, {Fault: fakellm.FaultHang}, {Fault: fakellm.FaultHang}}, 2, llm.PhaseFirstByte},
		{"stalled after the first chunk", []fakellm.Turn{
			{Content: "partial answer", Fault: fakellm.FaultStallMidStream, FaultArg: "1"},
			{Content: "partial answer", Fault: fakellm.FaultStallMidStream, FaultArg: "1"},
			{Content: "never reached"}}, 2, llm.PhaseIdle},
		{"a 503 between two silences", []fakellm.Turn{{Fault: fakellm.FaultHang}, {Fault: fakellm.FaultStatus, FaultArg: "503"}, {Fault: fakellm.FaultHang}, {Content: "never reached"}}, 3, llm.PhaseFirstByte},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startFake(t, tc.turns...)
			rec := &recorder{}
			c := newClient(srv, rec, func(o *llm.Options) { o.Timeouts = short })
			_, err := c.Complete(context.Background(), simpleRequest())
			var re *llm.RetryError
			var te *llm.TimeoutError
			if !errors.As(err, &re) || re.Attempts != tc.attempts || !errors.As(err, &te) || te.Phase != tc.phase {
				t.Fatalf("err %v, want %d attempts ending in a timeout (%s)", err, tc.attempts, tc.phase)
			}
			if n := len(srv.Requests()); n != tc.attempts {
				t.Errorf("%d requests", n)
			}
		})
	}
	// Silence once, then an answer: the retry is still there.
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultHang}, fakellm.Turn{Content: "ok"})
	resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Timeouts = short }).Complete(context.Background(), simpleRequest())
	if err != nil || resp.Message.Content != "ok" || resp.Attempts != 2 {
		t.Fatalf("err %v", err)
	}
}

// A streamed data chunk is a sign of life for the run's stall watchdog; an
// SSE keep-alive comment is not (it holds the idle timeout open, and only
// that).
func TestChunksAreProgressKeepAlivesAreNot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		turn     fakellm.Turn
		stream   bool
		wire     string
		progress bool
	}{
		{"stream", fakellm.Turn{Content: "a streamed answer"}, true, llm.WireChat, true},
		{"plain", fakellm.Turn{Content: "an answer"}, false, llm.WireChat, true},
		{"keep-alives only", fakellm.Turn{Fault: fakellm.FaultKeepAliveOnly, FaultArg: "10"}, true, llm.WireChat, false},
		{"responses stream", fakellm.Turn{Content: "a streamed answer"}, true, llm.WireResponses, true},
		{"responses plain", fakellm.Turn{Content: "an answer"}, false, llm.WireResponses, true},
		{"responses keep-alives only", fakellm.Turn{Fault: fakellm.FaultKeepAliveOnly, FaultArg: "10"}, true, llm.WireResponses, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			mon := liveness.New(clock.now)
			ctx := liveness.With(context.Background(), mon.Begin(liveness.Activity{Phase: liveness.PhaseModel}))
			clock.set(time.Hour) // any sign of life during the call is stamped 1h
			srv := startFake(t, tc.turn)
			c := newClient(srv, &recorder{}, func(o *llm.Options) {
				o.Stream, o.MaxAttempts, o.Timeouts = tc.stream, 1, llm.Timeouts{Request: 300 * time.Millisecond}
				o.WireAPI = tc.wire
			})
			_, _ = c.Complete(ctx, simpleRequest())
			clock.set(2 * time.Hour)
			since := mon.Status().SinceProgress
			if got := since == time.Hour; got != tc.progress {
				t.Errorf("progress during the call: %t (since %v), want %t", got, since, tc.progress)
			}
		})
	}
}

// stepClock is a clock a test sets.
type stepClock struct {
	mu  sync.Mutex
	t   time.Time
	off time.Duration
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t.Add(c.off)
}

func (c *stepClock) set(off time.Duration) {
	c.mu.Lock()
	c.off = off
	c.mu.Unlock()
}

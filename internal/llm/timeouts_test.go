package llm_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

// attemptClock records when each attempt of a call ended (OnRetry, then the
// return), so a test can check how long every attempt ran.
type attemptClock struct {
	mu    sync.Mutex
	start time.Time
	ends  []time.Time
	errs  []error
}

func (c *attemptClock) onRetry(_ int, _ time.Duration, err error) {
	c.mu.Lock()
	c.ends = append(c.ends, time.Now())
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

// durations are the attempts' run times; the waits between them are zero.
func (c *attemptClock) durations(end time.Time) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	prev := c.start
	for _, e := range append(c.ends, end) {
		out = append(out, e.Sub(prev))
		prev = e
	}
	return out
}

// runTimeout calls baseURL until the client gives up and checks that every
// attempt ended by the named timeout, after at least its limit and within
// twice it. A machine starved by other work can stretch an attempt past any
// bound, so a run whose only fault is timing is tried again, up to three
// times; the wrong timeout or error fails at once.
func runTimeout(t *testing.T, baseURL func() string, stream bool, tm llm.Timeouts, phase string, limit time.Duration) {
	t.Helper()
	var slow []string
	for try := 1; try <= 3; try++ {
		if slow = timeoutAttempts(t, baseURL(), stream, tm, phase, limit); slow == nil {
			return
		}
		t.Logf("try %d: %v", try, slow)
	}
	t.Errorf("attempts outside [%v, %v): %v", limit, 2*limit, slow)
}

// timeoutAttempts makes one call of two attempts and returns the attempts
// that ran outside [limit, 2×limit).
func timeoutAttempts(t *testing.T, baseURL string, stream bool, tm llm.Timeouts, phase string, limit time.Duration) []string {
	t.Helper()
	const attempts = 2
	clk := &attemptClock{}
	c := llm.New(llm.Options{
		BaseURL: baseURL, APIKey: testKey, Stream: stream, MaxAttempts: attempts, Timeouts: tm,
		Sleep:   func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
		OnRetry: clk.onRetry,
	})
	clk.start = time.Now()
	_, err := c.Complete(context.Background(), simpleRequest())
	end := time.Now()
	var re *llm.RetryError
	var te *llm.TimeoutError
	if !errors.As(err, &re) || re.Attempts != attempts || !errors.As(err, &te) || te.Phase != phase || te.Limit != limit {
		t.Fatalf("err = %v, want %d attempts ending in a %s timeout of %v", err, attempts, phase, limit)
	}
	// Each attempt's error is the timeout itself, worded as one (not a lost
	// connection that wraps it).
	want := (&llm.TimeoutError{Phase: phase, Limit: limit}).Error()
	for i, e := range clk.errs {
		if !errors.As(e, &te) || te.Phase != phase || e.Error() != want {
			t.Fatalf("attempt %d failed with %v, want %q", i+1, e, want)
		}
	}
	var slow []string
	for i, d := range clk.durations(end) {
		if d < limit {
			t.Fatalf("attempt %d ended after %v, before its %v timeout", i+1, d, limit)
		}
		if d >= 2*limit {
			slow = append(slow, fmt.Sprintf("attempt %d ran %v", i+1, d))
		}
	}
	return slow
}

// serve returns a fake server's URL for each try, each with its own script.
func serve(t *testing.T, turn fakellm.Turn) func() string {
	return func() string { return startFake(t, turn, turn).URL() }
}

func TestConnectTimeout(t *testing.T) {
	t.Parallel()
	l, err := fakellm.StallConnects()
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	const limit = 300 * time.Millisecond
	runTimeout(t, l.URL, true, llm.Timeouts{Connect: limit}, llm.PhaseConnect, limit)
}

func TestFirstByteTimeout(t *testing.T) {
	t.Parallel()
	const limit = 300 * time.Millisecond
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "json"}[stream], func(t *testing.T) {
			runTimeout(t, serve(t, fakellm.Turn{Fault: fakellm.FaultHang}), stream, llm.Timeouts{FirstByte: limit}, llm.PhaseFirstByte, limit)
		})
	}
}

// Keep-alive comments reset the idle timeout, but the request timeout still
// ends a stream that never says anything.
func TestCommentsOnlyStreamHitsRequestTimeout(t *testing.T) {
	t.Parallel()
	const limit = 1500 * time.Millisecond
	ka := fakellm.Turn{Fault: fakellm.FaultKeepAliveOnly, FaultArg: "5"}
	runTimeout(t, serve(t, ka), true, llm.Timeouts{Idle: time.Second, Request: limit}, llm.PhaseRequest, limit)
}

func TestStreamStoppedMidwayHitsIdleTimeout(t *testing.T) {
	t.Parallel()
	const limit = 300 * time.Millisecond
	stall := fakellm.Turn{Fault: fakellm.FaultStallMidStream, FaultArg: "2", Content: "this stream stops after two chunks", ChunkSize: 4}
	runTimeout(t, serve(t, stall), true, llm.Timeouts{Idle: limit}, llm.PhaseIdle, limit)
}

// A stream slower in total than the idle timeout lives as long as each gap
// is shorter.
func TestIdleTimeoutMovesWithEveryChunk(t *testing.T) {
	t.Parallel()
	// 14 chunks 150 ms apart: 2 s in all, each gap 850 ms short of the idle
	// timeout, so a loaded machine does not stretch one past it.
	srv := startFake(t, fakellm.Turn{Content: "one two three four five six", ChunkSize: 2, ChunkDelayMs: 150})
	c := newClient(srv, &recorder{}, func(o *llm.Options) { o.Timeouts = llm.Timeouts{Idle: time.Second} })
	resp, err := c.Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Timing.Total < time.Second || resp.Attempts != 1 {
		t.Errorf("total %v attempts %d: want one attempt longer than the idle timeout", resp.Timing.Total, resp.Attempts)
	}
}

func TestTimeoutMessages(t *testing.T) {
	cases := map[string]string{
		llm.PhaseConnect:   "llm: connect timeout: no connection within 10s (llm.connect_timeout_seconds)",
		llm.PhaseFirstByte: "llm: first-byte timeout: no response within 10s of sending the request (llm.first_byte_timeout_seconds)",
		llm.PhaseIdle:      "llm: idle timeout: the response sent nothing for 10s (llm.idle_timeout_seconds)",
		llm.PhaseRequest:   "llm: request timeout: the call was still running after 10s (llm.request_timeout_seconds)",
	}
	for phase, want := range cases {
		err := &llm.TimeoutError{Phase: phase, Limit: 10 * time.Second}
		if err.Error() != want || !errors.Is(err, llm.ErrTimeout) {
			t.Errorf("%s: %q", phase, err.Error())
		}
	}
	re := &llm.RetryError{Attempts: 4, Endpoint: "http://h/v1/chat/completions", Err: &llm.TimeoutError{Phase: llm.PhaseIdle, Limit: time.Second}}
	if want := "llm: retry exhausted (4 attempts) calling http://h/v1/chat/completions: idle timeout: the response sent nothing for 1s (llm.idle_timeout_seconds)"; re.Error() != want {
		t.Errorf("retry: %q", re.Error())
	}
}

// A budget deadline on ctx is not a timeout of the call: it is not retried
// and keeps its cause.
func TestCallerDeadlineIsNotRetried(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultHang}, fakellm.Turn{Content: "never"})
	rec := &recorder{}
	c := newClient(srv, rec, func(o *llm.Options) { o.Timeouts = llm.Timeouts{FirstByte: time.Minute} })
	cause := errors.New("execution budget exceeded: runtime")
	ctx, cancel := context.WithTimeoutCause(context.Background(), 150*time.Millisecond, cause)
	defer cancel()
	_, err := c.Complete(ctx, simpleRequest())
	if !errors.Is(err, cause) || errors.Is(err, llm.ErrTimeout) || len(rec.Retries()) != 0 {
		t.Fatalf("err = %v, retries %v", err, rec.Retries())
	}
}

// A disabled timeout (negative: the config's 0) lets its phase run on; the
// others still end the call.
func TestDisabledTimeout(t *testing.T) {
	t.Parallel()
	const limit = 300 * time.Millisecond
	runTimeout(t, serve(t, fakellm.Turn{Fault: fakellm.FaultHang}), true, llm.Timeouts{FirstByte: -1, Request: limit}, llm.PhaseRequest, limit)
}

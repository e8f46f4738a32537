package llm

import (
	"context"
	"net/http/httptrace"
	"sync"
	"time"
)

// Timeouts bound each attempt of a call, so no provider can keep odek
// waiting forever. A zero field takes its default; a negative one (the
// config's 0, "no limit") disables that timeout. Each fires as a
// *TimeoutError, which is retried like a network error.
type Timeouts struct {
	// Connect bounds the wait for a connection (DNS, TCP, TLS).
	Connect time.Duration
	// FirstByte bounds the wait, once connected, for the first byte of the
	// response. Without streaming the provider answers only when it is done,
	// so this includes the whole generation.
	FirstByte time.Duration
	// Idle bounds each silence while the response body arrives. Any byte
	// counts, so keep-alive comments hold it open; Request still ends it.
	Idle time.Duration
	// Request bounds the whole attempt, however busy the stream.
	Request time.Duration
}

// Default timeouts. First byte and idle are generous because a reasoning
// model may think for minutes before it sends anything, and a local server
// may first load the model; a hung endpoint still ends a call within
// MaxTimedOutAttempts of them (retry.go).
const (
	DefaultConnectTimeout   = 10 * time.Second
	DefaultFirstByteTimeout = 120 * time.Second
	DefaultIdleTimeout      = 90 * time.Second
	DefaultRequestTimeout   = 600 * time.Second
)

func (t Timeouts) withDefaults() Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&t.Connect, DefaultConnectTimeout)
	def(&t.FirstByte, DefaultFirstByteTimeout)
	def(&t.Idle, DefaultIdleTimeout)
	def(&t.Request, DefaultRequestTimeout)
	return t
}

// Timeout phases, as TimeoutError.Phase names them.
const (
	PhaseConnect   = "connect"
	PhaseFirstByte = "first-byte"
	PhaseIdle      = "idle"
	PhaseRequest   = "request"
)

// watchdog holds the one running phase timeout of an attempt (connect, then
// first byte, then idle) and cancels the attempt with a *TimeoutError when
// it fires. The idle deadline moves on every body read without touching the
// timer: when the timer fires early it re-arms for the rest.
//
// It runs on the real clock (time.Now): its timers are real ones, so a fake
// clock could not drive it.
type watchdog struct {
	cancel context.CancelCauseFunc
	limits Timeouts

	mu       sync.Mutex
	phase    string
	limit    time.Duration
	deadline time.Time // zero when stopped
	timer    *time.Timer
}

// startAttempt returns the attempt's context: bounded by the request
// timeout, traced so the watchdog follows the connection's phases, and
// cancelled with a *TimeoutError when a phase runs too long. stop releases
// it and must be called when the attempt is done.
func startAttempt(ctx context.Context, t Timeouts) (actx context.Context, dog *watchdog, stop func()) {
	cancelReq := context.CancelFunc(func() {})
	if t.Request > 0 {
		ctx, cancelReq = context.WithTimeoutCause(ctx, t.Request, &TimeoutError{Phase: PhaseRequest, Limit: t.Request})
	}
	ctx, cancel := context.WithCancelCause(ctx)
	dog = &watchdog{cancel: cancel, limits: t}
	dog.timer = time.AfterFunc(time.Hour, dog.fire)
	dog.arm(PhaseConnect, t.Connect)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              func(httptrace.GotConnInfo) { dog.arm(PhaseFirstByte, t.FirstByte) },
		GotFirstResponseByte: func() { dog.arm(PhaseIdle, t.Idle) },
	})
	return ctx, dog, func() {
		dog.stop()
		cancel(nil)
		cancelReq()
	}
}

// arm starts phase with its limit, replacing the running one; a limit <= 0
// runs the phase unbounded.
func (w *watchdog) arm(phase string, limit time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.phase == PhaseIdle && phase != PhaseIdle {
		return // a late trace event (a redirect's second connection) cannot rewind
	}
	w.phase, w.limit = phase, limit
	if limit <= 0 {
		w.deadline = time.Time{}
		w.timer.Stop()
		return
	}
	w.deadline = time.Now().Add(limit)
	w.timer.Reset(limit)
}

// touch records activity: the idle deadline moves on.
func (w *watchdog) touch() {
	w.mu.Lock()
	if w.phase == PhaseIdle && !w.deadline.IsZero() {
		w.deadline = time.Now().Add(w.limit)
	}
	w.mu.Unlock()
}

func (w *watchdog) fire() {
	w.mu.Lock()
	if w.deadline.IsZero() {
		w.mu.Unlock()
		return
	}
	if left := time.Until(w.deadline); left > 0 {
		w.timer.Reset(left) // touched since the timer was set
		w.mu.Unlock()
		return
	}
	err := &TimeoutError{Phase: w.phase, Limit: w.limit}
	w.deadline = time.Time{}
	w.mu.Unlock()
	w.cancel(err)
}

func (w *watchdog) stop() {
	w.mu.Lock()
	w.deadline = time.Time{}
	w.timer.Stop()
	w.mu.Unlock()
}

// timeoutOf returns the *TimeoutError that ended actx, if one did.
func timeoutOf(actx context.Context) *TimeoutError {
	te, _ := context.Cause(actx).(*TimeoutError)
	return te
}

package events

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Sink receives events. Write is called on the emitter's goroutine only, one
// event at a time; it may keep no reference to ev after returning.
type Sink interface {
	Write(ev *Event) error
}

// Options configures an Emitter.
type Options struct {
	RunID       string              // "" = NewRunID()
	ParentRunID string              // stamped on every event of a sub-agent run
	TaskID      string              // the sub-agent's task id, stamped likewise
	Sinks       []Sink              // called in order for every event
	Buffer      int                 // channel slots; <= 0 = 1024
	Now         func() time.Time    // clock for timestamps; nil = time.Now
	Redact      func(string) string // applied to a copy of every string in tool and data; nil = none
	OnSinkError func(error)         // first error (or panic) of each sink; called on the emitter goroutine
	// OnDrop is called once, the first time an event is lost to a full
	// buffer, a stalled sink or a Close that gave up, with the number lost so
	// far; on the emitter goroutine or in Close. Failed writes go to
	// OnSinkError instead; Dropped counts both.
	OnDrop func(lost int64)
	// FinalStall is how long a final event (IsFinal) waits for buffer room
	// while the sinks deliver nothing at all; <= 0 = DefaultFinalStall.
	FinalStall time.Duration
}

// DefaultBuffer is the channel size when Options.Buffer is not set.
const DefaultBuffer = 1024

// DefaultFinalStall bounds a final event's wait on sinks that make no
// progress: a stuck disk or FIFO reader must not hang the exit.
const DefaultFinalStall = 3 * time.Second

// IsFinal reports whether t ends a run's stream (run_completed, run_failed
// and the budget_exceeded, stall_detected or loop_detected before it).
// Final events are never dropped for a full buffer while the sinks
// deliver: Emit waits for room instead.
func IsFinal(t Type) bool {
	switch t {
	case RunCompleted, RunFailed, BudgetExceeded, StallDetected, LoopDetected:
		return true
	}
	return false
}

// Emitter stamps and queues events and delivers them to sinks on its own
// goroutine. A nil *Emitter is valid and emits nothing.
type Emitter struct {
	runID   string
	parent  string
	taskID  string
	now     func() time.Time
	redact  func(string) string
	onErr   func(error)
	onDrop  func(int64)
	stall   time.Duration
	session atomic.Pointer[string]
	trace   atomic.Pointer[[2]string] // trace_id, span_id (SetTrace)
	lost    atomic.Int64              // to a full buffer, a stall or an aborted Close
	failed  atomic.Int64              // events at least one sink failed (or was disabled) on
	// delivered counts events handed to the sinks: a final event waits while it moves.
	delivered  atomic.Int64
	dropWarned atomic.Bool
	// finalWaiting counts final events waiting for room (tests observe it).
	finalWaiting atomic.Int32
	pending      sync.WaitGroup // final events waiting for room; Close waits for them

	// mu orders Emit's send against Close: once closed is set under the write
	// lock no send can follow, so the drain that Close waits for is complete.
	mu     sync.RWMutex
	closed bool
	ch     chan *Event

	sinks     []sinkState
	closeOnce sync.Once
	quit      chan struct{} // closed by Close: drain what is queued, then exit
	abort     chan struct{} // closed when Close's ctx ends: stop after the current event
	abortOnce sync.Once
	done      chan struct{} // closed when the goroutine exits
}

type sinkState struct {
	sink     Sink
	disabled bool // after a panic
	reported bool // first error already passed to OnSinkError
}

// NewEmitter starts the delivery goroutine; Close stops it.
func NewEmitter(o Options) *Emitter {
	e := &Emitter{
		runID:  o.RunID,
		parent: o.ParentRunID,
		taskID: o.TaskID,
		now:    o.Now,
		redact: o.Redact,
		onErr:  o.OnSinkError,
		onDrop: o.OnDrop,
		stall:  o.FinalStall,
		ch:     make(chan *Event, cmpOr(o.Buffer, DefaultBuffer)),
		quit:   make(chan struct{}),
		abort:  make(chan struct{}),
		done:   make(chan struct{}),
	}
	if e.runID == "" {
		e.runID = NewRunID()
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.stall <= 0 {
		e.stall = DefaultFinalStall
	}
	for _, s := range o.Sinks {
		if s != nil {
			e.sinks = append(e.sinks, sinkState{sink: s})
		}
	}
	go e.run()
	return e
}

func cmpOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// RunID is the id stamped on every event ("" for a nil Emitter).
func (e *Emitter) RunID() string {
	if e == nil {
		return ""
	}
	return e.runID
}

// Enabled reports whether events reach anyone: false for a nil Emitter and
// for one without sinks, which drops every event at once. Callers skip
// building event data when it is false.
func (e *Emitter) Enabled() bool {
	return e != nil && len(e.sinks) > 0
}

// SetSessionID stamps id on events emitted from now on. Safe for concurrent use.
func (e *Emitter) SetSessionID(id string) {
	if e == nil {
		return
	}
	e.session.Store(&id)
}

// SetTrace stamps the run's trace id and its invoke_agent span id (32 and
// 16 lowercase hex digits) on events emitted from now on; "" leaves them
// out. Safe for concurrent use.
func (e *Emitter) SetTrace(traceID, spanID string) {
	if e == nil {
		return
	}
	e.trace.Store(&[2]string{traceID, spanID})
}

// Emit queues one event without blocking. data passes to the emitter: the
// caller must not modify it afterwards. A full buffer drops the event and
// counts it in Dropped, except a final event (IsFinal), which waits for
// room while the sinks make progress. After Close, and without sinks, Emit
// does nothing.
func (e *Emitter) Emit(t Type, iteration int, tool string, data map[string]any) {
	if !e.Enabled() {
		return
	}
	ev := &Event{Schema: Schema, Type: t, RunID: e.runID, ParentRunID: e.parent, TaskID: e.taskID,
		Iteration: iteration, Tool: tool, Timestamp: e.now().UTC(), Data: data}
	if s := e.session.Load(); s != nil {
		ev.SessionID = *s
	}
	if tr := e.trace.Load(); tr != nil {
		ev.TraceID, ev.SpanID = tr[0], tr[1]
	}
	e.enqueue(ev)
}

func (e *Emitter) enqueue(ev *Event) {
	e.mu.RLock()
	if e.closed {
		e.mu.RUnlock()
		return
	}
	if IsFinal(ev.Type) {
		e.pending.Add(1) // before Close can see closed; it waits for us
		e.mu.RUnlock()
		defer e.pending.Done()
		e.enqueueFinal(ev)
		return
	}
	defer e.mu.RUnlock()
	select {
	case e.ch <- ev:
	default:
		e.lost.Add(1)
	}
}

// enqueueFinal waits for room for ev as long as the sinks keep delivering:
// it gives up only when nothing was delivered for a whole stall period, or
// when Close gives up.
func (e *Emitter) enqueueFinal(ev *Event) {
	select {
	case e.ch <- ev:
		return
	default:
	}
	e.finalWaiting.Add(1)
	defer e.finalWaiting.Add(-1)
	t := time.NewTicker(e.stall)
	defer t.Stop()
	seen := e.delivered.Load()
	for {
		select {
		case e.ch <- ev:
			return
		case <-e.abort:
			e.lost.Add(1)
			return
		case <-t.C:
			now := e.delivered.Load()
			if now == seen {
				e.lost.Add(1) // the sinks are stuck
				return
			}
			seen = now
		}
	}
}

// Dropped is the number of events that did not reach every sink: lost to a
// full buffer, to sinks stuck while a final event waited, or to a Close
// whose context ended before the queue was drained, and events a sink
// failed on (or, once disabled by a panic, never got).
func (e *Emitter) Dropped() int64 {
	if e == nil {
		return 0
	}
	return e.lost.Load() + e.failed.Load()
}

// noteDrops calls OnDrop the first time events were lost.
func (e *Emitter) noteDrops() {
	if n := e.lost.Load(); n > 0 && e.onDrop != nil && e.dropWarned.CompareAndSwap(false, true) {
		e.onDrop(n)
	}
}

// Close stops accepting events and waits until the queued ones (a final
// event still waiting for room included) reach the sinks or ctx ends; then
// it returns ctx's error and the goroutine stops after the event in hand,
// counting the rest as dropped. Close does not close the sinks: close them
// after Close returns. Idempotent.
func (e *Emitter) Close(ctx context.Context) error {
	if e == nil {
		return nil
	}
	e.closeOnce.Do(func() {
		e.mu.Lock()
		e.closed = true
		e.mu.Unlock()
		go func() {
			e.pending.Wait() // no final event may come after the drain
			close(e.quit)
		}()
	})
	defer e.noteDrops()
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
		e.abortOnce.Do(func() { close(e.abort) })
		return fmt.Errorf("events: close: %w", ctx.Err())
	}
}

// run is the delivery goroutine.
func (e *Emitter) run() {
	defer close(e.done)
	for {
		select {
		case ev := <-e.ch:
			e.deliver(ev)
			e.noteDrops()
		case <-e.quit:
			e.drain()
			return
		}
	}
}

// drain delivers what Close left queued, unless Close gives up first.
func (e *Emitter) drain() {
	for {
		select {
		case <-e.abort:
			e.lost.Add(int64(len(e.ch)))
			return
		default:
		}
		select {
		case ev := <-e.ch:
			e.deliver(ev)
		default:
			return
		}
	}
}

func (e *Emitter) deliver(ev *Event) {
	if e.redact != nil {
		ev.Tool = e.redact(ev.Tool)
		ev.Data = redactMap(ev.Data, e.redact)
	}
	failed := false
	for i := range e.sinks {
		if !e.write(&e.sinks[i], ev) {
			failed = true
		}
	}
	if failed {
		e.failed.Add(1)
	}
	e.delivered.Add(1)
}

// write calls one sink, turning a panic into a reported, disabling error;
// it reports whether the sink took the event.
func (e *Emitter) write(s *sinkState, ev *Event) (ok bool) {
	if s.disabled {
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			s.disabled = true
			ok = false
			e.report(s, fmt.Errorf("events: sink panicked: %v", r))
		}
	}()
	if err := s.sink.Write(ev); err != nil {
		e.report(s, err)
		return false
	}
	return true
}

func (e *Emitter) report(s *sinkState, err error) {
	if s.reported || e.onErr == nil {
		s.reported = true
		return
	}
	s.reported = true
	e.onErr(err)
}

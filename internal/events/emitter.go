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
}

// DefaultBuffer is the channel size when Options.Buffer is not set.
const DefaultBuffer = 1024

// Emitter stamps and queues events and delivers them to sinks on its own
// goroutine. A nil *Emitter is valid and emits nothing.
type Emitter struct {
	runID   string
	parent  string
	taskID  string
	now     func() time.Time
	redact  func(string) string
	onErr   func(error)
	session atomic.Pointer[string]
	dropped atomic.Int64

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

// Emit queues one event without blocking. data passes to the emitter: the
// caller must not modify it afterwards. A full buffer drops the event and
// counts it in Dropped; after Close, and without sinks, Emit does nothing.
func (e *Emitter) Emit(t Type, iteration int, tool string, data map[string]any) {
	if !e.Enabled() {
		return
	}
	ev := &Event{Schema: Schema, Type: t, RunID: e.runID, ParentRunID: e.parent, TaskID: e.taskID,
		Iteration: iteration, Tool: tool, Timestamp: e.now().UTC(), Data: data}
	if s := e.session.Load(); s != nil {
		ev.SessionID = *s
	}
	e.enqueue(ev)
}

// Forward queues an event another run produced (a sub-agent's, relayed by
// its parent) as it is: its own run_id, parent_run_id and timestamp are
// kept, and it is redacted on delivery like every event. The caller hands ev
// over. Non-blocking, like Emit.
func (e *Emitter) Forward(ev *Event) {
	if !e.Enabled() || ev == nil {
		return
	}
	ev.Schema = Schema
	e.enqueue(ev)
}

func (e *Emitter) enqueue(ev *Event) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return
	}
	select {
	case e.ch <- ev:
	default:
		e.dropped.Add(1)
	}
}

// Dropped is the number of events lost to a full buffer or to a Close whose
// context ended before the queue was drained.
func (e *Emitter) Dropped() int64 {
	if e == nil {
		return 0
	}
	return e.dropped.Load()
}

// Close stops accepting events and waits until the queued ones reach the
// sinks or ctx ends; then it returns ctx's error and the goroutine stops after
// the event in hand, counting the rest as dropped. Close does not close the
// sinks: close them after Close returns. Idempotent.
func (e *Emitter) Close(ctx context.Context) error {
	if e == nil {
		return nil
	}
	e.closeOnce.Do(func() {
		e.mu.Lock()
		e.closed = true
		e.mu.Unlock()
		close(e.quit)
	})
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
			e.dropped.Add(int64(len(e.ch)))
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
	for i := range e.sinks {
		e.write(&e.sinks[i], ev)
	}
}

// write calls one sink, turning a panic into a reported, disabling error.
func (e *Emitter) write(s *sinkState, ev *Event) {
	if s.disabled {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			s.disabled = true
			e.report(s, fmt.Errorf("events: sink panicked: %v", r))
		}
	}()
	if err := s.sink.Write(ev); err != nil {
		e.report(s, err)
	}
}

func (e *Emitter) report(s *sinkState, err error) {
	if s.reported || e.onErr == nil {
		s.reported = true
		return
	}
	s.reported = true
	e.onErr(err)
}

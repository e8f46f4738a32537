package events

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowSink takes delay over every write: a sink that works, slowly.
type slowSink struct {
	delay   time.Duration
	entered chan struct{}
	once    sync.Once
	recordSink
}

func newSlowSink(d time.Duration) *slowSink {
	return &slowSink{delay: d, entered: make(chan struct{})}
}

func (s *slowSink) Write(ev *Event) error {
	s.once.Do(func() { close(s.entered) })
	time.Sleep(s.delay) // the sink's own slowness
	return s.recordSink.Write(ev)
}

// The final event is never dropped while the sink works: with the buffer
// full behind a slow sink, run_completed waits for room instead.
func TestFinalEventNotDroppedBehindSlowSink(t *testing.T) {
	slow := newSlowSink(50 * time.Millisecond)
	e := NewEmitter(Options{Sinks: []Sink{slow}, Buffer: 1})
	e.Emit(RunStarted, 0, "", nil)
	<-slow.entered // the sink is writing run_started
	for range 5 {
		e.Emit(ToolCallStarted, 1, "t", nil) // one is queued, four are dropped
	}
	e.Emit(RunCompleted, 0, "", nil)
	closeOK(t, e)
	got := slow.all()
	if len(got) != 3 || got[len(got)-1].Type != RunCompleted {
		t.Fatalf("sink got %v, want run_started, one tool_call_started, run_completed", types(got))
	}
	if e.Dropped() != 4 {
		t.Errorf("Dropped = %d, want 4", e.Dropped())
	}
}

// budget_exceeded and run_failed both wait, and keep their order.
func TestFinalEventsKeepOrder(t *testing.T) {
	slow := newSlowSink(30 * time.Millisecond)
	e := NewEmitter(Options{Sinks: []Sink{slow}, Buffer: 1})
	e.Emit(RunStarted, 0, "", nil)
	<-slow.entered
	e.Emit(ToolCallStarted, 1, "t", nil)
	e.Emit(BudgetExceeded, 1, "", nil)
	e.Emit(RunFailed, 1, "", nil)
	closeOK(t, e)
	got := types(slow.all())
	want := []Type{RunStarted, ToolCallStarted, BudgetExceeded, RunFailed}
	if len(got) != len(want) || got[2] != BudgetExceeded || got[3] != RunFailed {
		t.Fatalf("sink got %v, want %v", got, want)
	}
}

// Close waits for a final event that is still waiting for room: it is
// delivered, not lost behind the drain.
func TestCloseWaitsForAWaitingFinalEvent(t *testing.T) {
	gate := newGateSink()
	e := NewEmitter(Options{Sinks: []Sink{gate}, Buffer: 1})
	e.Emit(RunStarted, 0, "", nil)
	<-gate.entered
	e.Emit(ToolCallStarted, 1, "t", nil)
	go e.Emit(RunCompleted, 0, "", nil)
	for e.finalWaiting.Load() == 0 { // until the emit is inside its wait
		time.Sleep(time.Millisecond)
	}
	closed := make(chan error)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		closed <- e.Close(ctx)
	}()
	close(gate.release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if got := types(gate.all()); len(got) != 3 || got[2] != RunCompleted {
		t.Fatalf("sink got %v, want run_completed last", got)
	}
}

// A sink that delivers nothing at all does not hang the run: the final
// event gives up after the stall period and is counted.
func TestFinalEventGivesUpOnStuckSink(t *testing.T) {
	gate := newGateSink()
	var lost atomic.Int64
	e := NewEmitter(Options{Sinks: []Sink{gate}, Buffer: 1, FinalStall: 20 * time.Millisecond,
		OnDrop: func(n int64) { lost.Store(n) }})
	e.Emit(RunStarted, 0, "", nil)
	<-gate.entered
	e.Emit(ToolCallStarted, 1, "t", nil)
	e.Emit(RunFailed, 1, "", nil) // returns once the stall is seen
	if e.Dropped() != 1 {
		t.Errorf("Dropped = %d, want 1 (the final event)", e.Dropped())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := e.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v", err)
	}
	close(gate.release)
	closeOK(t, e)
	if lost.Load() < 1 {
		t.Errorf("OnDrop never called (lost %d)", lost.Load())
	}
}

// Failed writes count as dropped, once per event however many sinks fail;
// OnDrop is called once, for lost events only.
func TestDroppedCountsFailuresAndWarnsOnce(t *testing.T) {
	var n atomic.Int64
	failEven := funcSink(func(*Event) error {
		if n.Add(1)%2 == 0 {
			return errors.New("disk full")
		}
		return nil
	})
	alwaysFail := funcSink(func(*Event) error { return errors.New("gone") })
	rec := &recordSink{}
	e := NewEmitter(Options{Sinks: []Sink{failEven, rec}})
	for range 6 {
		e.Emit(IterationCompleted, 1, "", nil)
	}
	closeOK(t, e)
	if e.Dropped() != 3 || len(rec.all()) != 6 {
		t.Errorf("Dropped = %d, want 3 (every second write failed); healthy sink got %d", e.Dropped(), len(rec.all()))
	}
	e2 := NewEmitter(Options{Sinks: []Sink{alwaysFail, alwaysFail}})
	for range 4 {
		e2.Emit(IterationCompleted, 1, "", nil)
	}
	closeOK(t, e2)
	if e2.Dropped() != 4 {
		t.Errorf("two failing sinks: Dropped = %d, want 4 (one per event)", e2.Dropped())
	}

	gate := newGateSink()
	var mu sync.Mutex
	var calls []int64
	e3 := NewEmitter(Options{Sinks: []Sink{gate}, Buffer: 1, OnDrop: func(n int64) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, n)
	}})
	e3.Emit(RunStarted, 0, "", nil)
	<-gate.entered
	for range 10 {
		e3.Emit(ToolCallStarted, 1, "t", nil)
	}
	close(gate.release)
	closeOK(t, e3)
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0] < 1 {
		t.Errorf("OnDrop calls %v, want one", calls)
	}
}

func types(evs []Event) []Type {
	var out []Type
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordSink keeps every event it is given.
type recordSink struct {
	mu     sync.Mutex
	events []Event
}

func (s *recordSink) Write(ev *Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, *ev)
	return nil
}

func (s *recordSink) all() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// gateSink blocks every Write until release is closed.
type gateSink struct {
	release chan struct{}
	entered chan struct{}
	once    sync.Once
	recordSink
}

func newGateSink() *gateSink {
	return &gateSink{release: make(chan struct{}), entered: make(chan struct{})}
}

func (s *gateSink) Write(ev *Event) error {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return s.recordSink.Write(ev)
}

// funcSink adapts a function.
type funcSink func(*Event) error

func (f funcSink) Write(ev *Event) error { return f(ev) }

func closeOK(t *testing.T, e *Emitter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestEmitStampsEnvelope(t *testing.T) {
	rec := &recordSink{}
	e := NewEmitter(Options{Sinks: []Sink{rec}, Now: fixedClock()})
	if len(e.RunID()) != 32 {
		t.Fatalf("generated run id %q", e.RunID())
	}
	e.Emit(RunStarted, 0, "", nil)
	e.SetSessionID("s-1")
	e.Emit(ToolCallStarted, 2, "shell", map[string]any{"call_id": "c"})
	closeOK(t, e)
	got := rec.all()
	if len(got) != 2 {
		t.Fatalf("%d events, want 2", len(got))
	}
	if got[0].SessionID != "" || got[1].SessionID != "s-1" {
		t.Errorf("session ids %q, %q", got[0].SessionID, got[1].SessionID)
	}
	for _, ev := range got {
		if ev.Schema != Schema || ev.RunID != e.RunID() || ev.Timestamp.Location() != time.UTC {
			t.Errorf("bad envelope %+v", ev)
		}
	}
	if got[1].Iteration != 2 || got[1].Tool != "shell" || got[1].Data["call_id"] != "c" {
		t.Errorf("bad event %+v", got[1])
	}
}

// TestEmitStampsTrace: once the run's trace is known, every event carries
// trace_id and span_id (docs/TELEMETRY.md); before, and without one,
// neither is written.
func TestEmitStampsTrace(t *testing.T) {
	rec := &recordSink{}
	e := NewEmitter(Options{Sinks: []Sink{rec}, Now: fixedClock()})
	e.Emit(RunStarted, 0, "", nil)
	e.SetTrace("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")
	e.Emit(RunCompleted, 0, "", nil)
	closeOK(t, e)
	got := rec.all()
	if len(got) != 2 || got[0].TraceID != "" || got[0].SpanID != "" ||
		got[1].TraceID != "0af7651916cd43dd8448eb211c80319c" || got[1].SpanID != "b7ad6b7169203331" {
		t.Fatalf("events %+v", got)
	}
	b0, _ := json.Marshal(got[0])
	b1, _ := json.Marshal(got[1])
	if strings.Contains(string(b0), "trace_id") || !strings.Contains(string(b1), `"trace_id":"0af7651916cd43dd8448eb211c80319c","span_id":"b7ad6b7169203331"`) {
		t.Errorf("JSON:\n%s\n%s", b0, b1)
	}
}

func TestSlowSinkNeverBlocksEmit(t *testing.T) {
	gate := newGateSink()
	e := NewEmitter(Options{Sinks: []Sink{gate}, Buffer: 4})
	e.Emit(RunStarted, 0, "", nil)
	<-gate.entered // the goroutine holds one event, the buffer is empty
	start := time.Now()
	for range 10 {
		e.Emit(IterationCompleted, 1, "", nil)
	}
	if d := time.Since(start); d > 10*time.Second { // a blocking Emit would wait for the release below: forever
		t.Fatalf("Emit blocked for %v", d)
	}
	if got := e.Dropped(); got != 6 {
		t.Fatalf("Dropped = %d, want 6 (10 emitted, 4 slots)", got)
	}
	close(gate.release)
	closeOK(t, e)
	if n := len(gate.all()); n != 5 {
		t.Fatalf("sink got %d events, want 5", n)
	}
}

func TestCloseDrainsAndIsIdempotent(t *testing.T) {
	gate := newGateSink()
	e := NewEmitter(Options{Sinks: []Sink{gate}})
	for range 100 {
		e.Emit(IterationCompleted, 1, "", nil)
	}
	<-gate.entered
	go func() { time.Sleep(10 * time.Millisecond); close(gate.release) }()
	closeOK(t, e)
	closeOK(t, e)
	e.Emit(RunCompleted, 0, "", nil) // after Close: no-op, no panic
	if n := len(gate.all()); n != 100 {
		t.Fatalf("sink got %d events, want 100", n)
	}
	if e.Dropped() != 0 {
		t.Fatalf("Dropped = %d", e.Dropped())
	}
}

func TestCloseBoundedByContext(t *testing.T) {
	gate := newGateSink()
	e := NewEmitter(Options{Sinks: []Sink{gate}})
	for range 10 {
		e.Emit(IterationCompleted, 1, "", nil)
	}
	<-gate.entered
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := e.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want deadline exceeded", err)
	}
	close(gate.release)
	closeOK(t, e) // waits for the goroutine to stop after the event in hand
	if got := int64(len(gate.all())) + e.Dropped(); got != 10 {
		t.Fatalf("delivered+dropped = %d, want 10", got)
	}
}

func TestPanickingSinkIsIsolated(t *testing.T) {
	rec := &recordSink{}
	var mu sync.Mutex
	var reported []error
	panicky := funcSink(func(*Event) error { panic("boom") })
	e := NewEmitter(Options{Sinks: []Sink{panicky, rec}, OnSinkError: func(err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err)
	}})
	for range 3 {
		e.Emit(IterationCompleted, 1, "", nil)
	}
	closeOK(t, e)
	if len(rec.all()) != 3 {
		t.Fatalf("healthy sink got %d events, want 3", len(rec.all()))
	}
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "sink panicked: boom") {
		t.Fatalf("reported %v, want one panic report", reported)
	}
}

func TestWriteErrorReportedOnce(t *testing.T) {
	calls := 0
	failing := funcSink(func(*Event) error { calls++; return fmt.Errorf("disk full %d", calls) })
	var reported []error
	e := NewEmitter(Options{Sinks: []Sink{failing}, OnSinkError: func(err error) { reported = append(reported, err) }})
	for range 5 {
		e.Emit(IterationCompleted, 1, "", nil)
	}
	closeOK(t, e)
	if calls != 5 {
		t.Fatalf("sink called %d times, want 5 (it is kept after an error)", calls)
	}
	if len(reported) != 1 || reported[0].Error() != "disk full 1" {
		t.Fatalf("reported %v, want only the first error", reported)
	}
}

func TestRedactionNeverReachesSink(t *testing.T) {
	const secret = "sk-SECRET123"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	rec := &recordSink{}
	e := NewEmitter(Options{Sinks: []Sink{rec}, Redact: redact})
	type custom struct{ Token string }
	data := map[string]any{
		"plain":  "key " + secret,
		"nested": map[string]any{"deep": []any{"x", map[string]any{"k": secret}, 7, true}},
		"list":   []string{secret},
		"sm":     map[string]string{"a": secret},
		"raw":    []byte(secret), // would be base64 in JSON: emitted as redacted text
		"struct": custom{Token: secret},
		"count":  42,
		"ok":     false,
	}
	e.Emit(ToolCallStarted, 1, "srv__"+secret, data)
	closeOK(t, e)
	got := rec.all()
	if len(got) != 1 {
		t.Fatalf("%d events", len(got))
	}
	line, err := got[0].MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(line), secret) || strings.Contains(string(line), "c2stU0VDUkVUMTIz") {
		t.Fatalf("secret reached the sink: %s", line)
	}
	if got[0].Data["count"] != 42 || got[0].Data["ok"] != false || got[0].Tool != "srv__[REDACTED]" {
		t.Fatalf("non-string values changed: %+v", got[0])
	}
	if data["plain"] != "key "+secret {
		t.Fatal("caller's map was modified")
	}
}

func TestRedactRawJSON(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "tok", `"`) }
	if got := redactValue(json.RawMessage(`{"a":"x"}`), redact); string(got.(json.RawMessage)) != `{"a":"x"}` {
		t.Fatalf("valid raw JSON changed: %v", got)
	}
	if got, ok := redactValue(json.RawMessage(`{"a":"tok"}`), redact).(string); !ok || got != `{"a":"""}` {
		t.Fatalf("broken raw JSON not turned into a string: %#v", got)
	}
}

func TestNilEmitter(t *testing.T) {
	var e *Emitter
	e.Emit(RunStarted, 0, "", nil)
	e.SetSessionID("x")
	if e.Dropped() != 0 || e.RunID() != "" || e.Close(context.Background()) != nil {
		t.Fatal("nil emitter is not a no-op")
	}
}

// TestEmitterWithoutSinks: an emitter nobody listens to is not Enabled, and
// Emit drops at once: nothing is queued, stamped or redacted (the
// loop skips building event data on Enabled). Its run id still stands, for
// the children a run spawns.
func TestEmitterWithoutSinks(t *testing.T) {
	var nilE *Emitter
	if nilE.Enabled() {
		t.Error("nil emitter Enabled")
	}
	redactions := 0
	e := NewEmitter(Options{RunID: "run-1", Sinks: []Sink{nil}, Buffer: 1, Redact: func(s string) string { redactions++; return s }})
	if e.Enabled() {
		t.Error("emitter without sinks Enabled")
	}
	for range 3 { // more than the buffer holds: a queued event would count as dropped
		e.Emit(ToolCallStarted, 1, "tool", map[string]any{"k": "v"})
	}
	closeOK(t, e)
	if redactions != 0 || e.Dropped() != 0 || e.RunID() != "run-1" {
		t.Errorf("redactions %d, dropped %d, run id %q; want 0, 0, run-1", redactions, e.Dropped(), e.RunID())
	}
	rec := &recordSink{}
	on := NewEmitter(Options{Sinks: []Sink{rec}})
	if !on.Enabled() {
		t.Error("emitter with a sink not Enabled")
	}
	on.Emit(RunStarted, 0, "", nil)
	closeOK(t, on)
	if len(rec.all()) != 1 {
		t.Errorf("sink got %d events, want 1", len(rec.all()))
	}
}

func TestConcurrentEmitSessionClose(t *testing.T) {
	rec := &recordSink{}
	e := NewEmitter(Options{Sinks: []Sink{rec}, Buffer: 64})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 200 {
				e.Emit(IterationCompleted, j+1, "", map[string]any{"g": i})
				if j%50 == 0 {
					e.SetSessionID(fmt.Sprint("s", i))
				}
			}
		})
	}
	time.Sleep(time.Millisecond)
	closeOK(t, e) // races with the emitters on purpose
	wg.Wait()
	if got := int64(len(rec.all())) + e.Dropped(); got > 800 || got == 0 {
		t.Fatalf("delivered+dropped = %d", got)
	}
}

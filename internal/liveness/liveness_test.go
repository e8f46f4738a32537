package liveness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/odek-run/odek/internal/errclass"
)

// watched runs a Watch of m and collects what it says; in a synctest bubble
// its timers run on the bubble's clock.
type watched struct {
	beats []Status
	stall chan *StallError
	stop  func()
}

func watch(m *Monitor, heartbeat, stall time.Duration) *watched {
	w := &watched{stall: make(chan *StallError, 1)}
	w.stop = m.Watch(Watch{Heartbeat: heartbeat, Stall: stall,
		Beat:    func(st Status) { w.beats = append(w.beats, st) },
		Stalled: func(e *StallError) { w.stall <- e }})
	return w
}

func TestHeartbeatsAtTheInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(nil)
		w := watch(m, 30*time.Second, 0)
		span := m.Begin(Activity{Phase: PhaseTool, Tool: "shell", CallID: "call_1", Detail: "npm test", Iteration: 2})
		time.Sleep(95 * time.Second) // the bubble's clock: no real wait
		w.stop()
		if len(w.beats) != 3 {
			t.Fatalf("%d beats in 95s at 30s, want 3", len(w.beats))
		}
		for i, b := range w.beats {
			if want := time.Duration(i+1) * 30 * time.Second; b.Elapsed != want {
				t.Errorf("beat %d at %v, want %v", i, b.Elapsed, want)
			}
			if b.Phase != PhaseTool || len(b.Running) != 1 || b.Running[0].CallID != "call_1" {
				t.Errorf("beat %d: %+v", i, b)
			}
		}
		if got := w.beats[2].SinceProgress; got != 90*time.Second {
			t.Errorf("since progress %v at the third beat, want 90s", got)
		}
		span.End()
		if st := m.Status(); len(st.Running) != 0 || st.SinceProgress != 0 {
			t.Errorf("after End: %+v", st)
		}
	})
}

// The stall fires once nothing moved for the limit; every kind of sign of
// life pushes it back, and the error names what ran longest.
func TestStallAfterSilence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(nil)
		w := watch(m, 0, 10*time.Second)
		defer w.stop()
		model := m.Begin(Activity{Phase: PhaseModel, Iteration: 1})
		ctx := With(context.Background(), model)
		for range 5 { // a chunk every 8 s: slow, not stuck
			time.Sleep(8 * time.Second)
			Touch(ctx)
		}
		model.End()
		shell := m.Begin(Activity{Phase: PhaseTool, Tool: "shell", CallID: "call_ab12", Detail: "npm test", Iteration: 1})
		_ = m.Begin(Activity{Phase: PhaseTool, Tool: "fs__read", CallID: "call_2", Server: "fs", Iteration: 1})
		start := time.Now()
		e := <-w.stall
		if waited := time.Since(start); waited != 10*time.Second {
			t.Errorf("stalled after %v of silence, want 10s", waited)
		}
		if e.Activity.CallID != "call_ab12" || e.Running != 2 || e.Idle != 10*time.Second {
			t.Errorf("stall %+v", e)
		}
		want := `stalled 10s in shell "npm test" (call_ab12): nothing showed progress within stall_timeout_seconds (10s)`
		if e.Error() != want {
			t.Errorf("message\n got %s\nwant %s", e.Error(), want)
		}
		var c interface{ ErrorClass() string }
		if !errors.As(error(e), &c) || c.ErrorClass() != errclass.Stalled {
			t.Error("not classed stalled")
		}
		d := e.Data()
		if d["idle_ms"] != int64(10000) || d["limit_ms"] != int64(10000) || d["tool"] != "shell" || d["detail"] != "npm test" || d["running"] != 2 {
			t.Errorf("data %v", d)
		}
		shell.End()
	})
}

// An open prompt holds the watchdog: a person may take their time. The
// answer is a sign of life.
func TestNoStallWhileAPromptIsOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(nil)
		w := watch(m, 0, 10*time.Second)
		defer w.stop()
		ctx := With(context.Background(), m.Begin(Activity{Phase: PhaseTool, Tool: "shell", CallID: "c1"}))
		done := Prompt(ctx)
		if st := m.Status(); st.Phase != PhasePrompt || !st.Prompting {
			t.Fatalf("status during a prompt: %+v", st)
		}
		time.Sleep(time.Hour)
		if len(w.stall) != 0 {
			t.Fatal("stalled while a prompt was open")
		}
		done()
		done() // idempotent
		start := time.Now()
		<-w.stall
		if waited := time.Since(start); waited != 10*time.Second {
			t.Errorf("stalled %v after the answer, want 10s", waited)
		}
	})
}

// An MCP progress report counts when it moves; one repeated verbatim does not.
func TestReportedCountsOnlyWhatMoves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(nil)
		time.Sleep(time.Second)
		m.Reported("fs__scan", 1, "")
		if got := m.Status().SinceProgress; got != 0 {
			t.Fatalf("a first report did not count: %v", got)
		}
		for _, tc := range []struct {
			progress float64
			message  string
			counts   bool
		}{{1, "", false}, {2, "", true}, {2, "", false}, {2, "indexing", true}, {2, "indexing", false}} {
			time.Sleep(time.Second)
			m.Reported("fs__scan", tc.progress, tc.message)
			if got := m.Status().SinceProgress == 0; got != tc.counts {
				t.Errorf("report %v %q counted %t, want %t", tc.progress, tc.message, got, tc.counts)
			}
		}
	})
}

func TestSpanRecordsPhaseAndExitCode(t *testing.T) {
	m := New(nil)
	s := m.Begin(Activity{Phase: PhaseTool, Tool: "delegate_tasks", CallID: "c1"})
	ctx := With(context.Background(), s)
	SetPhase(ctx, PhaseSubagent)
	SetExitCode(ctx, 3)
	if a := s.Activity(); a.Phase != PhaseSubagent || m.Status().Phase != PhaseSubagent {
		t.Errorf("phase %q", a.Phase)
	}
	if code, ok := s.ExitCode(); !ok || code != 3 {
		t.Errorf("exit %d %t", code, ok)
	}
	s.End()
	s.End()
	if st := m.Status(); len(st.Running) != 0 || st.Phase != PhaseSubagent {
		t.Errorf("after End: %+v", st)
	}
}

// Nothing needs a Monitor: a nil one, a nil span and a bare context take
// every call.
func TestNilSafe(t *testing.T) {
	var m *Monitor
	m.Touch()
	m.Reported("k", 1, "")
	s := m.Begin(Activity{Phase: PhaseModel})
	s.End()
	if _, ok := s.ExitCode(); ok || m.Status().Phase != "" {
		t.Error("a nil monitor reported something")
	}
	m.Watch(Watch{Heartbeat: time.Second})()
	ctx := With(context.Background(), s)
	Touch(ctx)
	SetPhase(ctx, PhaseSubagent)
	SetExitCode(ctx, 1)
	Prompt(ctx)()
}

func TestActivityString(t *testing.T) {
	for _, tc := range []struct {
		a    Activity
		want string
	}{
		{Activity{Phase: PhaseModel, Iteration: 3}, "model call (iteration 3)"},
		{Activity{Phase: PhaseTrim, Iteration: 2}, "compaction call (iteration 2)"},
		{Activity{Phase: PhaseTool, Tool: "shell", CallID: "call_ab12", Detail: "npm test"}, `shell "npm test" (call_ab12)`},
		{Activity{Phase: PhaseTool, Tool: "fs__scan", CallID: "c2", Server: "fs"}, "fs__scan (c2, server fs)"},
		{Activity{Phase: PhaseSubagent, Tool: "delegate_tasks", CallID: "c3"}, "delegate_tasks (c3)"},
		{Activity{Phase: PhasePrompt, Tool: "shell", Detail: "rm -rf build"}, `the prompt for shell "rm -rf build"`},
		{Activity{}, "no running step"},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.a, got, tc.want)
		}
	}
	if !strings.HasPrefix((&StallError{Idle: 400 * time.Millisecond, Limit: time.Second}).Error(), "stalled 1s in no running step") {
		t.Error("a sub-second stall must read as 1s")
	}
}

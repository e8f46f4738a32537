package liveness

// Tests written against the hand mutations of scripts/hand-mutations.txt
// (issue 44). They run on synctest's clock, and every wait for the watchdog
// is bounded on that clock, so a watchdog that never fires fails the test
// instead of hanging it.

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// stallWithin waits for w's stall for at most d of the bubble's clock.
func stallWithin(t *testing.T, w *watched, d time.Duration) (*StallError, time.Duration) {
	t.Helper()
	start := time.Now()
	select {
	case e := <-w.stall:
		return e, time.Since(start)
	case <-time.After(d):
		t.Fatalf("no stall within %v", d)
		return nil, 0
	}
}

// Each prompt's answer closes it and is a sign of life: after two prompts
// answered, the watchdog is armed again and a silent call stalls one
// timeout after the last answer, not before.
func TestPromptClosesOnItsAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(nil)
		w := watch(m, 0, 10*time.Second)
		defer w.stop()
		ctx := With(context.Background(), m.Begin(Activity{Phase: PhaseTool, Tool: "shell", CallID: "c1"}))
		// Answers that do not fall on the watchdog's 10 s ticks: the
		// answer itself must restart the clock.
		for _, reading := range []time.Duration{61 * time.Second, 37 * time.Second} {
			done := Prompt(ctx)
			time.Sleep(reading) // a person reading the question
			done()
		}
		if st := m.Status(); st.Prompting || st.Phase != PhaseTool {
			t.Fatalf("after the answers: %+v", st)
		}
		if _, waited := stallWithin(t, w, time.Hour); waited != 10*time.Second {
			t.Errorf("stalled %v after the last answer, want 10s", waited)
		}
	})
}

// An activity beginning is a sign of life: a tool call begun after a long
// silence starts with a clock at zero, and is not blamed for what came
// before it.
func TestBeginIsASignOfLife(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(nil)
		time.Sleep(50 * time.Second)
		m.Begin(Activity{Phase: PhaseTool, Tool: "shell", CallID: "c1"})
		if got := m.Status().SinceProgress; got != 0 {
			t.Errorf("since progress %v right after a call began, want 0", got)
		}
	})
}

// Heartbeats keep their schedule (every interval from the start) while the
// stall watchdog wakes the watch at other times: with signs of life every
// 25 s and a 40 s stall limit, beats still come at 30 s, 60 s, … 180 s.
func TestHeartbeatsKeepTheirSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(nil)
		w := watch(m, 30*time.Second, 40*time.Second)
		quit := make(chan struct{})
		go func() {
			for {
				select {
				case <-quit:
					return
				case <-time.After(25 * time.Second):
					m.Touch()
				}
			}
		}()
		time.Sleep(200 * time.Second)
		w.stop()
		close(quit)
		if len(w.stall) != 0 {
			t.Fatal("stalled although touched every 25 s")
		}
		if len(w.beats) != 6 {
			t.Errorf("%d beats in 200 s at 30 s, want 6", len(w.beats))
		}
		for i, b := range w.beats {
			if want := time.Duration(i+1) * 30 * time.Second; b.Elapsed != want {
				t.Errorf("beat %d at %v, want %v", i, b.Elapsed, want)
			}
		}
	})
}

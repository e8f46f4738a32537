package liveness

import (
	"time"

	"github.com/odek-run/odek/internal/errclass"
)

// StallError ends a run in which nothing showed progress for the stall
// timeout. Activity is what had been running longest (the likely culprit),
// or the zero Activity when nothing was.
type StallError struct {
	Idle, Limit time.Duration
	Activity    Activity
	Running     int // activities running at the stall
}

func newStallError(st Status, limit time.Duration) *StallError {
	e := &StallError{Idle: st.SinceProgress, Limit: limit, Running: len(st.Running)}
	if len(st.Running) > 0 {
		e.Activity = st.Running[0]
	} else {
		e.Activity.Phase = st.Phase
	}
	return e
}

func (e *StallError) Error() string {
	return "stalled " + seconds(e.Idle) + " in " + e.Activity.String() +
		": nothing showed progress within stall_timeout_seconds (" + seconds(e.Limit) + ")"
}

// ErrorClass implements events.Classifier.
func (e *StallError) ErrorClass() string { return errclass.Stalled }

// Data is the stall as the stall_detected event and the run report give
// it: idle_ms, limit_ms, running, and the activity's fields.
func (e *StallError) Data() map[string]any {
	d := e.Activity.Data(time.Time{})
	d["idle_ms"], d["limit_ms"], d["running"] = e.Idle.Milliseconds(), e.Limit.Milliseconds(), e.Running
	return d
}

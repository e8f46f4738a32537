package liveness

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Watch configures Monitor.Watch.
type Watch struct {
	// Heartbeat is the interval of Beat, counted from the Monitor's start;
	// 0 = no heartbeats.
	Heartbeat time.Duration
	// Stall is how long the run may go without a sign of life; 0 = never
	// stalled.
	Stall time.Duration
	// Beat hears each heartbeat, on the watch goroutine.
	Beat func(Status)
	// Stalled hears the stall, once, on the watch goroutine; the watch
	// ends with it.
	Stalled func(*StallError)
}

// Watch runs w on a goroutine of its own until stop is called (stop waits
// for it, so no Beat or Stalled runs after stop returns) or the run
// stalled. A missed heartbeat (a Beat that took longer than the interval)
// is skipped, not caught up.
func (m *Monitor) Watch(w Watch) (stop func()) {
	if m == nil || w.Heartbeat <= 0 && w.Stall <= 0 {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go m.watch(w, done, exited)
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-exited
	}
}

func (m *Monitor) watch(w Watch, done <-chan struct{}, exited chan<- struct{}) {
	defer close(exited)
	next := w.Heartbeat // the next beat, as time since the start
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		st := m.Status()
		if w.Stall > 0 && !st.Prompting && st.SinceProgress >= w.Stall {
			if w.Stalled != nil {
				w.Stalled(newStallError(st, w.Stall))
			}
			return
		}
		if w.Heartbeat > 0 && st.Elapsed >= next {
			if w.Beat != nil {
				w.Beat(st)
			}
			for next <= st.Elapsed {
				next += w.Heartbeat
			}
		}
		wait := time.Duration(math.MaxInt64)
		if w.Heartbeat > 0 {
			wait = next - st.Elapsed
		}
		if w.Stall > 0 {
			left := w.Stall - st.SinceProgress
			if st.Prompting {
				left = w.Stall // look again; the answer restarts the clock
			}
			wait = min(wait, left)
		}
		timer.Reset(wait)
		select {
		case <-done:
			return
		case <-timer.C:
		}
	}
}

// String names the activity for a person: `shell "npm test" (call_ab12)`,
// `model call (iteration 3)`.
func (a Activity) String() string {
	switch a.Phase {
	case "":
		return "no running step"
	case PhaseModel:
		return "model call" + a.iteration()
	case PhaseTrim:
		return "compaction call" + a.iteration()
	}
	s := a.Tool
	if s == "" {
		s = string(a.Phase)
	}
	if a.Detail != "" {
		s += ` "` + a.Detail + `"`
	}
	var in []string
	if a.CallID != "" {
		in = append(in, a.CallID)
	}
	if a.Server != "" {
		in = append(in, "server "+a.Server)
	}
	if len(in) > 0 {
		s += " (" + strings.Join(in, ", ") + ")"
	}
	if a.Phase == PhasePrompt {
		s = "the prompt for " + s
	}
	return s
}

func (a Activity) iteration() string {
	if a.Iteration > 0 {
		return " (iteration " + strconv.Itoa(a.Iteration) + ")"
	}
	return ""
}

// Data is the activity as events carry it: phase, and each of tool,
// call_id, server, detail and iteration that it has; with a non-zero at,
// running_ms (how long it has run by then).
func (a Activity) Data(at time.Time) map[string]any {
	d := map[string]any{"phase": string(a.Phase)}
	put := func(k, v string) {
		if v != "" {
			d[k] = v
		}
	}
	put("tool", a.Tool)
	put("call_id", a.CallID)
	put("server", a.Server)
	put("detail", a.Detail)
	if a.Iteration > 0 {
		d["iteration"] = a.Iteration
	}
	if !at.IsZero() && !a.Started.IsZero() {
		d["running_ms"] = at.Sub(a.Started).Milliseconds()
	}
	return d
}

// seconds renders d in whole seconds, at least 1: "600s".
func seconds(d time.Duration) string {
	return strconv.FormatInt(max(int64(d.Round(time.Second)/time.Second), 1), 10) + "s"
}

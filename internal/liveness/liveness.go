// Package liveness tells a run that is slow from one that is stuck. A
// Monitor keeps the run's progress clock and what is running now (the
// model call, each tool call, a prompt); Watch turns them into heartbeats
// and, when nothing showed progress for the stall timeout, a *StallError.
//
// Invariants:
//   - The clock is reset only by a sign of life: an activity beginning or
//     ending, a Touch (a streamed model chunk, a line of tool output, a
//     sub-agent's event), an MCP progress report that moves (Reported), a
//     prompt answered. Merely being alive (an SSE keep-alive, a sub-agent's
//     heartbeat, a progress report that repeats itself) is not progress.
//   - While a prompt is open a person is being asked: no stall is declared
//     until it is answered.
//   - Every method is safe for concurrent use and a no-op on a nil Monitor
//     or Span, so code that runs outside a watched run needs no checks.
//
// Code far from the loop (a tool, the model client) reaches its call's Span
// through the context the loop gave it: Touch, SetPhase, SetExitCode and
// Prompt read it from ctx. The package is a leaf (errclass only).
package liveness

import (
	"context"
	"sync"
	"time"
)

// Phase names what a run is doing, as run_heartbeat reports it.
type Phase string

// The phases.
const (
	PhaseModel    Phase = "model"    // a model call (think step or summary)
	PhaseTool     Phase = "tool"     // a tool call
	PhaseSubagent Phase = "subagent" // a tool call that runs sub-agents
	PhasePrompt   Phase = "prompt"   // a person is asked (approval)
	PhaseTrim     Phase = "trim"     // the compaction side call of context trimming
)

// Activity is one thing a run does; the zero value is "nothing".
type Activity struct {
	Phase     Phase
	Tool      string // the tool's name (tool, subagent, prompt)
	CallID    string
	Server    string // the MCP server of an MCP tool
	Detail    string // what the call works on: a shell command, a path (one line, redacted, cut)
	Iteration int
	Started   time.Time
}

// Monitor is one run's progress clock and its running activities.
type Monitor struct {
	now func() time.Time

	mu      sync.Mutex
	start   time.Time
	last    time.Time // the last sign of life
	prompts int       // prompts open
	running []*Span   // in the order they began
	phase   Phase     // of the activity begun last: what the run was doing
	marks   map[string]mark
}

// mark is the last progress an MCP call reported, to tell a report that
// moves from one that repeats itself.
type mark struct {
	progress float64
	message  string
}

// New returns a Monitor whose clock starts now; now nil means time.Now.
func New(now func() time.Time) *Monitor {
	if now == nil {
		now = time.Now
	}
	t := now()
	return &Monitor{now: now, start: t, last: t}
}

// Touch records a sign of life.
func (m *Monitor) Touch() {
	if m == nil {
		return
	}
	t := m.now()
	m.mu.Lock()
	m.last = t
	m.mu.Unlock()
}

// Reported records an MCP progress report for key (the call's tool): a sign
// of life when progress or message moved since the last report for key. A
// server that repeats one report forever is not working, only alive.
func (m *Monitor) Reported(key string, progress float64, message string) {
	if m == nil {
		return
	}
	t := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	prev, seen := m.marks[key]
	if m.marks == nil {
		m.marks = map[string]mark{}
	}
	m.marks[key] = mark{progress, message}
	if !seen || progress != prev.progress || message != prev.message {
		m.last = t
	}
}

// Begin records that a begins now (a sign of life) and returns its Span;
// End it when it is over.
func (m *Monitor) Begin(a Activity) *Span {
	if m == nil {
		return nil
	}
	t := m.now()
	a.Started = t
	s := &Span{m: m, a: a}
	m.mu.Lock()
	m.running = append(m.running, s)
	m.phase, m.last = a.Phase, t
	m.mu.Unlock()
	return s
}

// Status is a snapshot of a Monitor.
type Status struct {
	At            time.Time
	Phase         Phase      // prompt while one is open, else the oldest running activity's, else the last begun
	Running       []Activity // oldest first
	SinceProgress time.Duration
	Elapsed       time.Duration // since New
	Prompting     bool
}

// Status returns what the run is doing now.
func (m *Monitor) Status() Status {
	if m == nil {
		return Status{}
	}
	t := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	st := Status{At: t, Phase: m.phase, SinceProgress: t.Sub(m.last), Elapsed: t.Sub(m.start), Prompting: m.prompts > 0}
	for _, s := range m.running {
		st.Running = append(st.Running, s.a)
	}
	switch {
	case st.Prompting:
		st.Phase = PhasePrompt
	case len(st.Running) > 0:
		st.Phase = st.Running[0].Phase
	}
	return st
}

// Span is one running activity.
type Span struct {
	m *Monitor

	// guarded by m.mu
	a       Activity
	exit    int
	hasExit bool
	ended   bool
}

// End records that the activity is over (a sign of life). Ending twice is
// harmless.
func (s *Span) End() {
	if s == nil {
		return
	}
	m := s.m
	t := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	m.last = t
	for i, r := range m.running {
		if r == s {
			m.running = append(m.running[:i], m.running[i+1:]...)
			break
		}
	}
}

// Activity returns the span's activity as it stands.
func (s *Span) Activity() Activity {
	if s == nil {
		return Activity{}
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.a
}

// ExitCode returns the exit code a tool recorded for the call (SetExitCode).
func (s *Span) ExitCode() (int, bool) {
	if s == nil {
		return 0, false
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.exit, s.hasExit
}

func (s *Span) setPhase(p Phase) {
	s.m.mu.Lock()
	s.a.Phase = p
	s.m.phase = p
	s.m.mu.Unlock()
}

func (s *Span) setExit(code int) {
	s.m.mu.Lock()
	s.exit, s.hasExit = code, true
	s.m.mu.Unlock()
}

type spanKey struct{}

// With returns ctx carrying s, for the code that runs the activity.
func With(ctx context.Context, s *Span) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, spanKey{}, s)
}

// SpanFrom returns the span ctx carries, or nil.
func SpanFrom(ctx context.Context) *Span {
	s, _ := ctx.Value(spanKey{}).(*Span)
	return s
}

// Touch records a sign of life of the activity ctx carries (a streamed
// chunk, a line of output); nothing when ctx carries none.
func Touch(ctx context.Context) {
	if s := SpanFrom(ctx); s != nil {
		s.m.Touch()
	}
}

// SetPhase refines the phase of the activity ctx carries (a tool that runs
// sub-agents says so).
func SetPhase(ctx context.Context, p Phase) {
	if s := SpanFrom(ctx); s != nil {
		s.setPhase(p)
	}
}

// SetExitCode records the exit code of the command the call ctx carries ran.
func SetExitCode(ctx context.Context, code int) {
	if s := SpanFrom(ctx); s != nil {
		s.setExit(code)
	}
}

// Prompt records that a person is asked now, for the call ctx carries: no
// stall is declared while the prompt is open. done closes it; its answer
// is a sign of life.
func Prompt(ctx context.Context) (done func()) {
	s := SpanFrom(ctx)
	if s == nil {
		return func() {}
	}
	m := s.m
	m.mu.Lock()
	m.prompts++
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t := m.now()
			m.mu.Lock()
			m.prompts--
			m.last = t
			m.mu.Unlock()
		})
	}
}

package loop

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/redact"
)

// ProgressKind names a step shown on the terminal.
type ProgressKind int

// Progress kinds, in the order a step goes through them.
const (
	ProgressThinking ProgressKind = iota // a model call started
	ProgressToolStart
	ProgressToolDone
	ProgressIterationDone
	ProgressEmptyReply // the model sent an empty reply and is asked again
	ProgressReAsk      // a final answer broke the contract (Options.Answers) and the model is asked again
	ProgressHeartbeat  // the run is alive (Options.Heartbeat); Live says what it is doing
)

// Progress is one notification for the terminal display. Usage is cumulative.
type Progress struct {
	Kind      ProgressKind
	Iteration int
	Tool      string
	CallID    string
	// Detail is what the call works on (CallDescriber: a shell command, a
	// path), redacted, on one line, cut; "" when the tool says nothing.
	Detail   string
	Failed   bool
	Denied   bool // the Gate refused the call (Failed is set too)
	Duration time.Duration
	// ExitCode is the exit status of the command the call ran, when the
	// tool recorded one (HasExit): a shell call that exited non-zero did
	// not fail as a call, but did not succeed either.
	ExitCode int
	HasExit  bool
	// Error is a failed call's error on one line, redacted and cut.
	Error string
	Usage budget.Usage
	// Live is the heartbeat's snapshot (ProgressHeartbeat only).
	Live *liveness.Status
}

// runner holds one run's state; it lives on the loop goroutine, except for the
// counters the tool goroutines report through act.
type runner struct {
	o         Options
	hist      *History
	res       Result
	start     time.Time
	llmOutput int64 // output tokens of main think steps, for tokens_per_second
	ids       callIDs
	cut       map[string]bool // ids of the current batch's calls cut by the output limit
	clamped   bool            // the last call's max_tokens was the output budget's clamp
	reAsks    int             // final answers Options.Answers sent back
	tainted   bool            // untrusted content reached the history (taint.go)

	ttftSum   time.Duration
	ttftCount int

	trim         *trimmer // what of the history each request shows (context.go)
	sentEstimate int      // estimate of the last request, overheads included
	sentText     int      // estimate of its text alone
	warnedCut    bool     // the silent-truncation warning was given
	digested     int      // groups the compaction digest covers

	sentTokens     int  // estimate of the request last sent, tools included (usage.go)
	warnedEstimate bool // the no-usage warning was given

	live   *liveness.Monitor // the progress clock (live.go)
	shared shared            // what the heartbeat reads
	loops  *repeats          // the loop breaker (repeats.go)

	hooks     hookState    // what lifecycle hooks did (hooks.go)
	pending   *llm.Message // the reply whose calls are running, for hooks' transcript
	hookTaint atomic.Bool  // a project hook's text reached a tool result
}

func newRunner(o Options) *runner {
	if o.MaxIterations <= 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MaxToolParallel <= 0 {
		o.MaxToolParallel = DefaultMaxToolParallel
	}
	if o.Redact == nil {
		o.Redact = redact.String
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &runner{o: o, trim: newTrimmer(o.ContextWindow, EstimateTools(o.Tools.Specs())),
		live: o.Liveness, loops: newRepeats(o.Loops)}
	if r.live == nil {
		r.live = liveness.New(o.Now)
	}
	if o.Compaction {
		r.trim.reserve = digestReserve
	}
	return r
}

func (r *runner) now() time.Time { return r.o.Now() }

func (r *runner) emit(t events.Type, iteration int, tool string, data map[string]any) {
	r.o.Events.Emit(t, iteration, tool, data)
}

func (r *runner) progress(p Progress) {
	if r.o.Progress != nil {
		p.Usage = r.res.Usage
		r.o.Progress(p)
	}
}

// iterationDone emits iteration_completed with the cumulative totals and the
// per-call speed fields (each omitted when unknown).
func (r *runner) iterationDone(i int, resp *llm.Response, tools int) {
	r.progress(Progress{Kind: ProgressIterationDone, Iteration: i})
	if !r.o.Events.Enabled() {
		return // building the event data is most of this function's cost
	}
	d := map[string]any{
		"input_tokens": r.res.Usage.Prompt(), "output_tokens": r.res.Usage.OutputTokens,
		"cached_tokens": r.res.Usage.CacheReadTokens, "tools_called": tools,
	}
	r.markEstimated(d)
	t := resp.Timing
	putMS(d, "call_duration_ms", t.Total)
	putMS(d, "ttft_ms", t.TimeToFirstToken)
	putMS(d, "generation_ms", t.Generation)
	if resp.Usage.Present {
		putCount(d, "call_input_tokens", resp.Usage.Prompt())
		putCount(d, "call_output_tokens", resp.Usage.OutputTokens)
		d["call_cached_tokens"] = resp.Usage.CacheReadTokens // the provider's prompt cache hits
		putRate(d, "tokens_per_second", resp.Usage.OutputTokens, t.Total)
		if t.TokenChunks >= 2 { // over one chunk, "generation" is just delivery
			putRate(d, "generation_tokens_per_second", resp.Usage.OutputTokens, t.Generation)
		}
	}
	r.emit(events.IterationCompleted, i, "", d)
}

// markEstimated says in an event's data that the run's token counts are,
// at least in part, odek's estimate (the provider reported no usage).
func (r *runner) markEstimated(d map[string]any) {
	if r.res.Usage.Estimated {
		d["usage_estimated"] = true
	}
}

func putMS(d map[string]any, key string, v time.Duration) {
	if v > 0 {
		d[key] = v.Milliseconds()
	}
}

// putCount sets a per-call token count only when there is one: the
// contract omits the per-call fields "when zero / unknown".
func putCount(d map[string]any, key string, n int64) {
	if n > 0 {
		d[key] = n
	}
}

// minRateWindow is the shortest time a rate is computed over: below it the
// clock's resolution and the network, not the model, set the figure.
const minRateWindow = time.Millisecond

func putRate(d map[string]any, key string, tokens int64, over time.Duration) {
	if tokens > 0 && over >= minRateWindow {
		d[key] = float64(tokens) / over.Seconds()
	}
}

// finish emits the closing events: budget_exceeded, stall_detected or
// loop_detected (if any) strictly before run_failed, or run_completed.
func (r *runner) finish(err error) {
	d := map[string]any{"duration_ms": r.now().Sub(r.start).Milliseconds()}
	r.contractData(d)
	r.markEstimated(d)
	if r.res.LLMDuration > 0 {
		d["llm_duration_ms"] = r.res.LLMDuration.Milliseconds()
		putRate(d, "tokens_per_second", r.llmOutput, r.res.LLMDuration)
	}
	if err == nil {
		d["input_tokens"] = r.res.Usage.Prompt()
		d["output_tokens"] = r.res.Usage.OutputTokens
		d["cached_tokens"] = r.res.Usage.CacheReadTokens
		if _, ok := d["llm_duration_ms"]; !ok {
			d["llm_duration_ms"] = int64(0)
		}
		r.emit(events.RunCompleted, 0, "", d)
		return
	}
	var be *budget.Error
	var se *liveness.StallError
	var le *LoopError
	switch {
	case errors.As(err, &be):
		r.emit(events.BudgetExceeded, r.res.Iterations, "", be.EventData())
	case errors.As(err, &se):
		r.emit(events.StallDetected, r.res.Iterations, se.Activity.Tool, se.Data())
	case errors.As(err, &le):
		r.emit(events.LoopDetected, r.res.Iterations, le.Tool, le.Data())
	}
	d["error_class"] = events.ErrorClass(err)
	r.emit(events.RunFailed, r.res.Iterations, "", d)
}

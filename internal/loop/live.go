package loop

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/untrusted"
)

// StallMarker opens the partial answer of a run the stall watchdog ended.
const StallMarker = "[Run stalled — partial summary]"

// stallSummaryLimit bounds the summary side call after a stall: the job
// was stopped for hanging and must not hang in its epilogue.
const stallSummaryLimit = 2 * time.Minute

// CallDescriber is a Tool that names what one call works on, for progress
// lines, tool_call_completed and tool_call_failed, heartbeats and stall
// reports: the shell tool its command ("command"), file tools their path
// ("path"). field is the event field the value goes in; value is shown
// redacted, on one line and cut. "" = nothing to say.
type CallDescriber interface {
	DescribeCall(args json.RawMessage) (field, value string)
}

// ServerTool is a Tool that belongs to an MCP server: heartbeats and stall
// reports name the server.
type ServerTool interface {
	ServerName() string
}

// detailRunes caps what a call's description shows.
const detailRunes = 120

// shared is what the heartbeat goroutine reads of the run: a copy kept
// under a lock, since the loop goroutine owns the Result.
type shared struct {
	mu        sync.Mutex
	usage     budget.Usage
	iteration int
}

// publish copies the counters the heartbeat reports.
func (r *runner) publish() {
	r.shared.mu.Lock()
	r.shared.usage, r.shared.iteration = r.res.Usage, r.res.Iterations
	r.shared.mu.Unlock()
}

func (r *runner) published() (budget.Usage, int) {
	r.shared.mu.Lock()
	defer r.shared.mu.Unlock()
	return r.shared.usage, r.shared.iteration
}

// watch starts the heartbeat and the stall watchdog for the run; the
// returned context is cancelled with the *liveness.StallError when the
// watchdog fires. stop ends the watch (no heartbeat after it returns).
func (r *runner) watch(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := r.live.Watch(liveness.Watch{
		Heartbeat: r.o.Heartbeat, Stall: r.o.StallTimeout, Beat: r.beat,
		Stalled: func(e *liveness.StallError) { cancel(e) },
	})
	return ctx, func() { stop(); cancel(nil) }
}

// beat emits run_heartbeat (and a heartbeat progress note) on the watch
// goroutine.
func (r *runner) beat(st liveness.Status) {
	if st.Phase == "" {
		st.Phase = liveness.PhaseModel // nothing has begun yet: the first think step is next
	}
	usage, iter := r.published()
	if r.o.Progress != nil {
		r.o.Progress(Progress{Kind: ProgressHeartbeat, Iteration: iter, Usage: usage, Live: &st})
	}
	if !r.o.Events.Enabled() {
		return
	}
	running := make([]map[string]any, len(st.Running))
	for k, a := range st.Running {
		running[k] = a.Data(st.At)
	}
	d := map[string]any{
		"phase": string(st.Phase), "running": running,
		"since_progress_ms": st.SinceProgress.Milliseconds(), "elapsed_ms": st.Elapsed.Milliseconds(),
		"input_tokens": usage.Prompt(), "output_tokens": usage.OutputTokens,
	}
	if usage.Estimated {
		d["usage_estimated"] = true
	}
	r.emit(events.RunHeartbeat, iter, "", d)
}

// begin starts an activity; ctx then carries its span for the code that
// does the work (the model client, the tool).
func (r *runner) begin(ctx context.Context, a liveness.Activity) (context.Context, *liveness.Span) {
	s := r.live.Begin(a)
	return liveness.With(ctx, s), s
}

// toolActivity is the activity of one tool call: its name, id, server and
// what it works on.
func (r *runner) toolActivity(i int, c callDesc) liveness.Activity {
	return liveness.Activity{Phase: liveness.PhaseTool, Tool: c.tool, CallID: c.id, Server: c.server, Detail: c.value, Iteration: i}
}

// callDesc is what the loop says about a call beside its name.
type callDesc struct {
	tool, id, server string
	field, value     string // CallDescriber's, redacted, one line, cut
}

// describe asks the tool what the call works on and which server it is of.
func (r *runner) describe(name, id string, args []byte) (d callDesc) {
	d.tool, d.id = name, id
	t, ok := r.o.Tools.Lookup(name)
	if !ok {
		return d
	}
	if st, ok := t.(ServerTool); ok {
		d.server = st.ServerName()
	}
	cd, ok := t.(CallDescriber)
	if !ok || !json.Valid(args) {
		return d
	}
	defer func() {
		if recover() != nil {
			d.field, d.value = "", "" // a description is never worth a crash
		}
	}()
	field, value := cd.DescribeCall(args)
	if field != "" && value != "" {
		d.field, d.value = field, untrusted.OneLine(r.o.Redact(value), detailRunes)
	}
	return d
}

// stallSummary writes the partial answer of a run the watchdog stopped,
// when the model was not what stalled: a tool hung, the model can still
// say what was done. It runs under ctx (the caller's, which the stall did
// not cancel) and stallSummaryLimit.
func (r *runner) stallSummary(ctx context.Context, err error) string {
	var se *liveness.StallError
	if !errors.As(err, &se) || ctx.Err() != nil {
		return ""
	}
	switch se.Activity.Phase {
	case liveness.PhaseModel, liveness.PhaseTrim, "":
		return "" // the model is what hangs, or nothing ran: no summary to be had
	}
	limit := stallSummaryLimit
	if r.o.StallTimeout > 0 {
		limit = min(limit, r.o.StallTimeout)
	}
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	text, serr := r.summarize(sctx)
	if serr != nil {
		return ""
	}
	answer := StallMarker + "\n\n" + text
	r.hist.Append(llm.Message{Role: llm.RoleAssistant, Content: answer})
	r.afterBatch()
	return answer
}

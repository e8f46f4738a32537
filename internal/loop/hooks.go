package loop

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/llm"
)

// Hooks runs lifecycle hooks (internal/hooks.Runner). The loop fires
// SessionStart and UserPromptSubmit before its first model call,
// PreToolUse after a call's arguments parse and before the tool's risk is
// assessed and the Gate asked (so a hook's new arguments are what the
// policy decides on, and its allow never skips the Gate), PostToolUse or
// PostToolUseFailure after a call that ran, PermissionDenied after a call
// the Gate refused, PreCompact before a compaction digest, Stop on a
// final answer that passed Options.Answers, StopFailure and SessionEnd as
// the run ends. nil (the default) fires nothing and costs one nil check.
type Hooks interface {
	Fire(ctx context.Context, in hooks.Input) hooks.Result
}

// endHookTime bounds the SessionEnd and StopFailure hooks: they run after
// the run's own context may have ended (a budget stop, an interrupt).
const endHookTime = 10 * time.Second

// hookState is the loop's own record of what hooks did.
type hookState struct {
	mu      sync.Mutex
	stopped *hooks.StoppedError // a hook answered "continue": false
	// continuations are the times a Stop hook kept the agent going.
	continuations int
}

// halt records the first hook that stopped the run.
func (h *hookState) halt(e hooks.Event, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped == nil {
		h.stopped = &hooks.StoppedError{Event: e, Reason: reason}
	}
}

// halted is the hook stop, if any (a nil error otherwise).
func (h *hookState) halted() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped == nil {
		return nil
	}
	return h.stopped
}

// fire runs one event's hooks; a "continue": false among them is recorded.
func (r *runner) fire(ctx context.Context, in hooks.Input) hooks.Result {
	in.History = r.hist.Messages()
	res := r.o.Hooks.Fire(ctx, in)
	if res.Stop {
		r.hooks.halt(in.Event, res.StopReason)
	}
	return res
}

// beginHooks fires SessionStart and UserPromptSubmit before the first
// model call. Their context joins the history after the task; a refused
// task or a stop ends the run.
func (r *runner) beginHooks(ctx context.Context) error {
	if r.o.Hooks == nil {
		return nil
	}
	src := r.o.SessionSource
	if src == "" {
		src = "startup"
	}
	prompt := lastUserText(r.hist.Messages()) // the task, before any context follows it
	start := r.fire(ctx, hooks.Input{Event: hooks.SessionStart, Source: src, Model: r.o.ModelName})
	r.addContext(hooks.SessionStart, start)
	if err := r.hooks.halted(); err != nil {
		return err
	}
	submit := r.fire(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: prompt})
	if submit.Block {
		return &hooks.StoppedError{Event: hooks.UserPromptSubmit, Reason: submit.Reason}
	}
	r.addContext(hooks.UserPromptSubmit, submit)
	return r.hooks.halted()
}

// addContext appends what hooks added for the model as a user message
// that says where it comes from.
func (r *runner) addContext(e hooks.Event, res hooks.Result) {
	if res.Context == "" {
		return
	}
	r.hist.Append(llm.Message{Role: llm.RoleUser, Content: "[Context from the operator's " + string(e) + " hooks]\n" + res.Context})
	if res.Untrusted && !r.tainted {
		r.taint()
	}
}

// lastUserText is the text of the last user message: the task.
func lastUserText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// callHooks is what the hooks of one tool call need across invoke and
// call: the arguments the call ran with and how far it got.
type callHooks struct {
	args   json.RawMessage
	ran    bool // the tool was called
	gated  bool // the Gate refused it
	notes  string
	unsafe bool // notes came from a project hook
}

// preToolUse fires PreToolUse for a call whose arguments parsed: a block
// is the call's refusal, an ask is handed to the Gate, updatedInput
// replaces the arguments.
func (r *runner) preToolUse(ctx context.Context, i int, c callIdent, args json.RawMessage, ch *callHooks) (json.RawMessage, string, error) {
	res := r.fire(ctx, hooks.Input{Event: hooks.PreToolUse, Iteration: i, Tool: c.name, CallID: c.id, Args: args, Pending: r.pending})
	if err := r.hooks.halted(); err != nil {
		return args, "", &hooks.BlockedError{Tool: c.name, Why: err.Error()}
	}
	if res.Block {
		return args, "", &hooks.BlockedError{Tool: c.name, Why: res.Reason}
	}
	ch.note(res)
	if res.UpdatedInput != nil && json.Valid(res.UpdatedInput) {
		args = res.UpdatedInput
	}
	ask := ""
	if res.Ask {
		ask = res.Reason
		if ask == "" {
			ask = "a PreToolUse hook asks the operator to approve this call"
		}
	}
	return args, ask, nil
}

// callIdent names a call for its hooks.
type callIdent struct{ name, id string }

// note keeps a hook's context for the call's result.
func (ch *callHooks) note(res hooks.Result) {
	if res.Context != "" {
		ch.notes += "\n[PreToolUse hook] " + res.Context
		ch.unsafe = ch.unsafe || res.Untrusted
	}
}

// afterCall fires PostToolUse, PostToolUseFailure or PermissionDenied for
// a call and returns what its hooks add to the result the model sees.
func (r *runner) afterCall(ctx context.Context, i int, c llm.ToolCall, ch *callHooks, text string, o *callOutcome) string {
	in := hooks.Input{Iteration: i, Tool: c.Function.Name, CallID: c.ID, Args: ch.args}
	switch {
	case ch.ran && o.err == nil:
		in.Event, in.Response = hooks.PostToolUse, text
	case ch.ran:
		in.Event, in.Error = hooks.PostToolUseFailure, o.err.Error()
		in.Interrupted = o.cut || ctx.Err() != nil && !budget.IsBudget(context.Cause(ctx))
	case ch.gated:
		in.Event, in.Error = hooks.PermissionDenied, o.err.Error()
	default:
		return ch.notes
	}
	res := r.fire(ctx, in)
	notes := ch.notes
	if res.Block && res.Reason != "" {
		notes += "\n[" + string(in.Event) + " hook] " + res.Reason
	}
	if res.Context != "" {
		notes += "\n[" + string(in.Event) + " hook] " + res.Context
	}
	if (ch.unsafe || res.Untrusted) && notes != "" {
		r.hookTaint.Store(true)
	}
	return notes
}

// stopHooks fires Stop on a final answer. A hook that blocks keeps the
// agent going with its reason as the next user message, at most
// MaxStopContinuations times; past that the answer stands, marked
// StopHookCap. again reports that the loop goes on.
func (r *runner) stopHooks(ctx context.Context, i int, answer string) (again bool) {
	if r.o.Hooks == nil {
		return false
	}
	res := r.fire(ctx, hooks.Input{Event: hooks.Stop, Iteration: i, LastMessage: answer,
		StopActive: r.hooks.continuations > 0})
	if !res.Block || res.Stop {
		return false
	}
	if r.hooks.continuations >= r.o.MaxStopContinuations {
		r.res.Stop, r.res.Partial = StopHookCap, true
		return false
	}
	r.hooks.continuations++
	r.res.StopContinuations = r.hooks.continuations
	r.res.Stop, r.res.Partial = StopCompleted, false
	reason := res.Reason
	if reason == "" {
		reason = "a Stop hook asks you to go on"
	}
	r.hist.Append(llm.Message{Role: llm.RoleUser, Content: "[A Stop hook the operator configured did not accept the answer]\n" + reason})
	if res.Untrusted && !r.tainted {
		r.taint()
	}
	r.progress(Progress{Kind: ProgressReAsk, Iteration: i})
	return true
}

// preCompact fires PreCompact before a digest; false: a hook blocked it.
func (r *runner) preCompact(ctx context.Context, i int) bool {
	if r.o.Hooks == nil {
		return true
	}
	return !r.fire(ctx, hooks.Input{Event: hooks.PreCompact, Iteration: i, Trigger: "auto"}).Block
}

// endHooks fires StopFailure (when the run failed) and SessionEnd, under a
// context of their own: the run's may be over.
func (r *runner) endHooks(ctx context.Context, err error) {
	if r.o.Hooks == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endHookTime)
	defer cancel()
	reason := "completed"
	switch {
	case err == nil:
	case IsInterrupted(err):
		reason = "interrupted"
	case budget.IsBudget(err):
		reason = "budget"
	default:
		reason = "failed"
	}
	if err != nil {
		var stopped *hooks.StoppedError
		if !errors.As(err, &stopped) {
			r.fire(ctx, hooks.Input{Event: hooks.StopFailure, Iteration: r.res.Iterations, Error: err.Error()})
		}
	}
	r.fire(ctx, hooks.Input{Event: hooks.SessionEnd, Iteration: r.res.Iterations, Reason: reason})
}

// Package loop is odek's think-act loop: it asks the model, runs the tools the
// model calls (concurrently, bounded), feeds the results back, and repeats until
// the model answers without tool calls or a limit stops it.
//
// Invariants:
//   - History is kept as whole message groups; after any stop, the history has
//     no assistant tool call without its tool message.
//   - Every tool result is redacted and framed with a per-call nonce before it
//     enters history; unknown tools, bad arguments, errors and panics all become
//     results the model sees, never a crash.
//   - Budgets are checked where README's "Budgets" says; the runtime budget is a
//     deadline on ctx whose cause is the budget error, so a call still running
//     when it expires is cancelled and the stop is reported as a budget stop.
//   - budget_exceeded (stall_detected, loop_detected) is emitted before
//     run_failed.
//   - A run that is alive says so (run_heartbeat); one in which nothing
//     showed progress for StallTimeout is stopped (live.go), and one that
//     repeats itself is told, then stopped (repeats.go).
//
// The loop knows tools and the model only through the small interfaces in
// tool.go; the CLI wires concrete ones in.
package loop

import (
	"context"
	"errors"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/telemetry"
)

// Defaults of docs/CONFIG.md.
const (
	DefaultMaxIterations   = 90
	DefaultMaxToolParallel = 4
)

// Options configure one run. Model is required; everything else has a default.
type Options struct {
	Model     Model
	ModelName string
	// Sandbox is run_started's "sandbox_policy" object ({"mode",
	// "landlock_abi", "seccomp", "network"}); nil reports mode "off".
	// run_started's "sandbox" is the contract's bool (docs/EXTENSIONS.md), true
	// when the mode is not off and the kernel has Landlock.
	Sandbox map[string]any
	// StartedData is added to run_started's data (the CLI puts the MCP
	// servers there); the loop's own fields win on a clash.
	StartedData     map[string]any
	Tools           *Registry
	System          string
	MaxIterations   int
	MaxToolParallel int
	MaxTokens       int // per-call cap asked of the provider; 0 = provider default
	// ReasoningEffort is sent as reasoning_effort ("low", "medium", "high");
	// "" sends none.
	ReasoningEffort string

	// Gate decides on every call before it runs; nil lets every call run.
	Gate Gate
	// Hooks runs lifecycle hooks (hooks.go); nil runs none.
	Hooks Hooks
	// SessionSource is SessionStart's source: "startup" (the default) or
	// "resume" (odek continue).
	SessionSource string
	// MaxStopContinuations caps the times a Stop hook may keep the agent
	// going after a final answer (0: never).
	MaxStopContinuations int

	// ResponseFormat, when set, is asked of every think call and of the
	// iteration-cap summary: any of them may give the final answer.
	ResponseFormat *llm.ResponseFormat
	// Answers, when set, holds every final answer to a contract the caller
	// sets (--output-schema); see AnswerChecker.
	Answers AnswerChecker

	// ContextWindow is the model's context size in tokens; 0 (unknown)
	// turns proactive trimming off. Compaction adds a digest of what
	// trimming drops (a side call). See trim.go.
	ContextWindow int
	Compaction    bool
	// Plan renders the plan message ("" = no plan); the loop upserts it
	// after each tool batch, before AfterBatch.
	Plan func() string
	// OnUntrusted is called once, on the loop goroutine, when the run has
	// ingested untrusted content: the first tool result of a tool that is
	// not a TrustedOutputTool entered the history, or the history a run
	// continues already held one (see taint.go). nil = nobody asks.
	OnUntrusted func()
	// Warn receives warnings for the operator (a server that cut the
	// prompt silently); nil drops them.
	Warn func(string)

	// Liveness is the run's progress clock; nil = the loop keeps its own.
	// A caller passes one to feed it signs of life the loop does not see
	// (MCP progress reports, Monitor.Reported).
	Liveness *liveness.Monitor
	// Heartbeat is the interval of run_heartbeat events (and heartbeat
	// Progress notes); 0 = none.
	Heartbeat time.Duration
	// StallTimeout ends the run with a *liveness.StallError when nothing
	// showed progress for that long (no streamed chunk, no line of tool
	// output, no call begun or ended, ...); 0 = never.
	StallTimeout time.Duration
	// Loops configures the loop breaker (repeats.go); the zero value takes
	// the defaults.
	Loops LoopLimits

	// Telemetry, when set, puts each tool call in an execute_tool span
	// under the span on the run's context (docs/TELEMETRY.md); nil = none.
	Telemetry *telemetry.Tracer

	Budget      *budget.Tracker
	Events      *events.Emitter
	IncludeArgs bool // raw (redacted) args in tool_call_started

	// AfterBatch runs after each tool batch and after the final answer with a
	// copy of the history (sessions save it). It runs on the loop goroutine.
	AfterBatch func(history []llm.Message)
	// OnReply hears each reply the model gave, once its tool calls have
	// their run-unique ids, before they run (or before the reply is taken
	// as the final answer); it runs on the loop goroutine (stream-json
	// shows the model's text with it).
	OnReply func(iteration int, reply llm.Message)
	// Progress receives step notifications for the terminal display.
	Progress func(Progress)
	// Redact masks secrets in tool output; nil means redact.String.
	Redact func(string) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Result describes a run, complete or not. Run returns it together with any
// error, so the caller can always report what was spent.
type Result struct {
	Answer string
	// Stop says how a run without an error ended; Partial is true unless it
	// is StopCompleted (an iteration-cap summary, an answer cut at the
	// output-token limit, or PartialSummary's answer after an early stop).
	Stop        Stop
	Partial     bool
	Iterations  int
	Usage       budget.Usage
	LLMDuration time.Duration
	// TimeToFirstToken is the mean over the model calls that measured one
	// (streaming only); 0 when none did.
	TimeToFirstToken time.Duration
	// ReasoningChars counts the characters of reasoning text the model sent
	// (never part of the answer); ReasoningTokens is the part of the output
	// tokens the provider reported as reasoning.
	ReasoningChars, ReasoningTokens int64
	ToolCalls                       ToolCounts
	// StopContinuations counts the times a Stop hook kept the agent going.
	StopContinuations int
	History           []llm.Message
}

// ToolCounts counts tool calls by outcome; Denied calls never ran.
type ToolCounts struct {
	OK, Failed, Denied int
}

// Run drives the loop for task until an answer, a limit or an error.
func Run(ctx context.Context, o Options, task string) (*Result, error) {
	r := newRunner(o)
	var msgs []llm.Message
	if o.System != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: o.System})
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: task})
	return r.run(ctx, NewHistory(msgs...))
}

// Continue drives the loop over an existing history (the caller has appended
// the new user message).
func Continue(ctx context.Context, o Options, h *History) (*Result, error) {
	return newRunner(o).run(ctx, h)
}

func (r *runner) run(ctx context.Context, h *History) (*Result, error) {
	r.hist = h
	r.ingestRestored(h.Messages())
	r.ids = seedCallIDs(h.Messages())
	r.start = r.now()
	started := map[string]any{}
	for k, v := range r.o.StartedData {
		started[k] = v
	}
	policy := r.sandboxInfo()
	started["model"], started["max_iterations"] = r.o.ModelName, r.o.MaxIterations
	started["sandbox"], started["sandbox_policy"] = sandboxOn(policy), policy
	r.emit(events.RunStarted, 0, "", started)
	wctx, stop := r.watch(ctx)
	err := r.beginHooks(wctx)
	var answer string
	if err == nil {
		answer, err = r.iterate(wctx)
	}
	stop()
	if answer == "" {
		answer = r.stallSummary(ctx, err) // a tool hung, not the model: it can say what was done
	}
	if answer == "" {
		err = timeUp(r.res.Iterations, err)
	}
	if err == nil {
		// What sub-agents charged back may have taken the run past a
		// limit that no check of its own saw: an answer does not excuse it.
		err = r.o.Budget.Exceeded()
	}
	r.endHooks(ctx, err)
	r.res.Answer = answer
	r.res.History = r.hist.Snapshot()
	r.finish(err)
	return &r.res, err
}

// sandboxOn is run_started's "sandbox" bool: shell commands run confined,
// which takes a mode other than off and a kernel with Landlock (without it
// the classifier alone holds, docs/SECURITY.md).
func sandboxOn(policy map[string]any) bool {
	mode, _ := policy["mode"].(string)
	abi, _ := policy["landlock_abi"].(int)
	return mode != "" && mode != "off" && abi > 0
}

// sandboxInfo is what run_started's sandbox_policy says about the sandbox.
func (r *runner) sandboxInfo() map[string]any {
	if r.o.Sandbox != nil {
		return r.o.Sandbox
	}
	return map[string]any{"mode": "off", "landlock_abi": 0, "seccomp": false, "network": "on"}
}

// iterate is the loop proper: think, check the budget, act, as docs/ARCHITECTURE.md describes it.
func (r *runner) iterate(ctx context.Context) (string, error) {
	for i := 1; i <= r.o.MaxIterations; i++ {
		r.res.Iterations = i
		r.publish()
		if err := r.checkStart(ctx); err != nil {
			return "", timeUp(i-1, err)
		}
		if err := r.trimBefore(ctx, i); err != nil {
			return "", err
		}
		resp, err := r.think(ctx, i)
		if err != nil {
			return "", err
		}
		calls := resp.Message.ToolCalls
		if err := r.account(resp); err != nil {
			if len(calls) == 0 {
				r.hist.Append(resp.Message)
			}
			return "", err
		}
		if err := refusal(i, resp); err != nil {
			return "", err
		}
		if len(calls) == 0 {
			r.reply(i, resp.Message)
			answer, err := r.finalAnswer(i, resp)
			again, err := r.checkAnswer(i, answer, err)
			if !again && err == nil {
				again = r.stopHooks(ctx, i, answer)
			}
			if !again {
				return answer, err
			}
			continue
		}
		if err := r.o.Budget.CheckToolBatch(len(calls)); err != nil {
			return r.budgetStopWithSummary(ctx, err)
		}
		r.ids.assign(i, calls)
		r.reply(i, resp.Message)
		r.cut = cutCalls(resp)
		out := r.act(ctx, i, resp.Message)
		looping := r.breakLoops(i, calls, out)
		r.refreshPlan()
		r.afterBatch()
		r.iterationDone(i, resp, len(calls))
		if ctx.Err() != nil {
			return "", cause(ctx)
		}
		if looping != nil {
			return r.loopStop(ctx, looping)
		}
	}
	return r.iterationCapSummary(ctx)
}

// checkStart is step 1 and 3: cancellation and the runtime budget.
func (r *runner) checkStart(ctx context.Context) error {
	if ctx.Err() != nil {
		return cause(ctx)
	}
	if err := r.hooks.halted(); err != nil {
		return err
	}
	return r.o.Budget.CheckRuntime(r.now())
}

// account adds the response's usage (estimated where the provider reported
// none, usage.go) and checks the token and cost budgets.
func (r *runner) account(resp *llm.Response) error {
	u := r.usageOf(resp)
	r.res.Usage.InputTokens += u.InputTokens
	r.res.Usage.OutputTokens += u.OutputTokens
	r.res.Usage.CacheReadTokens += u.CacheReadTokens
	r.res.Usage.CacheCreationTokens += u.CacheCreationTokens
	r.res.Usage.Estimated = r.res.Usage.Estimated || u.Estimated
	r.publish()
	return r.o.Budget.AddUsage(u)
}

func (r *runner) reply(i int, m llm.Message) {
	if r.o.OnReply != nil {
		r.o.OnReply(i, m)
	}
}

func (r *runner) afterBatch() {
	if r.o.AfterBatch != nil {
		r.o.AfterBatch(r.hist.Snapshot())
	}
}

// cause returns why ctx ended: the budget error for a runtime stop, else
// context.Canceled or DeadlineExceeded.
func cause(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return ctx.Err()
}

// IsInterrupted reports whether err is a user interrupt (not a budget stop).
func IsInterrupted(err error) bool {
	return errors.Is(err, context.Canceled) && !budget.IsBudget(err)
}

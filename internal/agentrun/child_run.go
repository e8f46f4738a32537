package agentrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/odek-run/odek/internal/agentsmd"
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/prompt"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/subagent/childside"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

// deadlineError ends a sub-agent's context at its soft or hard deadline.
type deadlineError struct{ what string }

func (e *deadlineError) Error() string      { return e.what }
func (e *deadlineError) ErrorClass() string { return errclass.DeadlineExceeded }
func (e *deadlineError) Unwrap() error      { return context.DeadlineExceeded }

var (
	errSoftDeadline = &deadlineError{"the soft deadline was reached"}
	errHardDeadline = &deadlineError{"the hard deadline was reached"}
)

// execute runs the child and keeps its result for deliver; the error
// carries the exit code.
func (c *child) execute(sig, ctx context.Context) error {
	res, err := c.run(sig, ctx)
	c.ended = res
	return err
}

// deliver prints the finished line and the result, once the run is closed
// (its relayed events drained). Nothing before the run ended.
func (c *child) deliver() {
	if c == nil || c.ended == nil {
		return
	}
	res := c.ended
	c.out.Send(wire.Line{Type: wire.LineFinished, Status: res.Status, Iterations: res.Iterations,
		DurationS: res.DurationSeconds, TokensUsed: res.TokensUsed, CostUSD: res.CostUSD, Artifacts: len(res.Artifacts)})
	c.out.Result(res)
	if c.o.ArtifactFrame {
		c.out.ArtifactFrame(c.task.ArtifactRoot, res.Artifacts)
	}
}

// run drives the child's loop under its deadlines and returns the result and
// the error that carries the exit code (docs/SUBAGENTS.md). sig is the
// signal context, which tells an interrupt apart; ctx is the run's.
func (c *child) run(sig, ctx context.Context) (*wire.Result, error) {
	c.out.Send(wire.Line{Type: wire.LineStarted, PID: os.Getpid(), Depth: c.r.conf.place.depth,
		TimeoutS: int(c.timeout.Seconds()), MaxIter: c.maxIter})
	hctx, hcancel := context.WithDeadlineCause(ctx, c.r.conf.start.Add(c.timeout), errHardDeadline)
	defer hcancel()
	sctx, scancel := context.WithDeadlineCause(hctx, c.r.conf.start.Add(c.soft), errSoftDeadline)
	defer scancel()
	opts := c.childLoopOptions()
	res, err := loop.Run(sctx, opts, childside.UserMessage(c.task, c.r.conf.place.trust == wire.Trusted, untrusted.NewNonce()))
	if errors.Is(err, errSoftDeadline) {
		_, err = loop.PartialSummary(hctx, opts, res, loop.TimeBudgetMarker)
		if err != nil && hctx.Err() != nil {
			err = context.Cause(hctx)
		}
	}
	err = c.r.cas.finish(sig, err)
	c.r.endAgentSpan(sig, res, err)
	r := c.result(sig, res, err)
	return r, c.exitError(sig, r, err)
}

// childLoopOptions are the loop options of a sub-agent: the fixed system
// prompt with the numbers it runs under, its iteration cap, and progress
// that also goes out as stream lines.
func (c *child) childLoopOptions() loop.Options {
	cons := childside.Constraints{
		TimeoutSeconds: int(c.timeout.Seconds()), SoftSeconds: int(c.soft.Seconds()), MaxIterations: c.maxIter,
		Depth: c.r.conf.place.depth, MaxDepth: c.sc.Settings.MaxDepth,
	}
	r := c.r
	if l := r.limits.tracker.Snapshot().Limits; c.sc.AnnounceBudget {
		cons.MaxRuntime, cons.MaxToolCalls, cons.MaxInputTokens, cons.MaxOutputTok, cons.MaxCostUSD =
			l.MaxRuntimeSeconds, l.MaxToolCalls, l.MaxInputTokens, l.MaxOutputTokens, l.MaxCostUSD
	}
	role := prompt.SubAgent(childside.SystemPrompt, r.promptOptions(0, budget.Limits{}))
	system := r.schema.system(prompt.ComposeProject(role+childside.ConstraintsBlock(cons), "", agentsmd.Render(r.agents), ""))
	opts := loop.Options{
		Model: r.model.client, ModelName: r.conf.cfg.Model, Tools: r.tools.reg, System: system,
		StartedData:   r.startedData(),
		MaxIterations: c.maxIter, MaxToolParallel: r.conf.cfg.MaxToolParallel,
		Budget: r.limits.tracker, Events: r.sinks.emitter, Progress: c.progress, ReasoningEffort: r.model.effort,
		Gate: r.tools.gate, OnUntrusted: r.taint, Sandbox: r.tools.sandbox.info, Telemetry: r.tel,
	}
	r.hookOptions(&opts)
	r.sessionOptions(&opts) // its own plan and context trimming; a child has no session
	r.livenessOptions(&opts)
	r.schema.apply(&opts) // --output-schema: the same guard as run's
	return opts
}

// progress feeds the terminal view and the stream.
func (c *child) progress(p loop.Progress) {
	c.r.sinks.view.Update(p)
	switch p.Kind {
	case loop.ProgressToolStart:
		c.out.Send(wire.Line{Type: wire.LineToolCall, Name: p.Tool})
	case loop.ProgressToolDone:
		c.out.Send(wire.Line{Type: wire.LineToolResult, Name: p.Tool, Data: map[string]any{
			"failed": p.Failed, "denied": p.Denied, "duration_ms": p.Duration.Milliseconds()}})
	case loop.ProgressIterationDone:
		c.out.Send(wire.Line{Type: wire.LineProgress, Step: p.Iteration})
	case loop.ProgressHeartbeat:
		c.heartbeatLine(p)
	}
}

// result builds the result object from how the run ended.
func (c *child) result(sig context.Context, res *loop.Result, err error) *wire.Result {
	r := &wire.Result{Status: wire.StatusSuccess, ParentSession: c.r.conf.place.parentSession}
	answer := ""
	if res != nil {
		answer = res.Answer
	}
	var be *budget.Error
	switch {
	case err == nil && res.Stop == loop.StopEarly: // the soft deadline's summary
		r.Status, r.PartialReason = wire.StatusPartial, wire.ReasonTime
	case err == nil && res.Stop == loop.StopMaxTokens:
		r.Status = wire.StatusPartial // the answer was cut at the provider's limit
	case err == nil && res.Stop == loop.StopMaxIterations:
		r.Status, r.PartialReason = wire.StatusPartial, wire.ReasonIteration
	case errors.As(err, &be):
		r.Status, r.PartialReason, r.Error = wire.StatusBudgetExhausted, wire.ReasonExecution, be.Error()
	case errors.Is(err, errHardDeadline):
		r.Status, r.Error, answer = wire.StatusError, fmt.Sprintf("timeout after %s", c.timeout), ""
	case sig.Err() != nil:
		r.Status, r.Error, answer = wire.StatusError, "interrupted", ""
	case err != nil:
		r.Status, r.Error, answer = wire.StatusError, redact.String(err.Error()), ""
	}
	var hist []llm.Message
	if res != nil {
		hist = res.History
	}
	wire.FromHistory(r, hist, answer)
	if res != nil {
		// iterations means what it means for run and --max-iter: model
		// turns, the final answer's included (not only turns with calls).
		r.Iterations = res.Iterations
	}
	r.Summary = redact.String(r.Summary)
	if err == nil {
		r.Output = redactedJSON(c.r.schema.value()) // the matching answer's value; nil without a schema
	}
	c.account(r)
	c.collectArtifacts(r)
	return r
}

// account fills what the child spent, its sub-agents included, as its
// tracker counted it (provider-reported tokens, DECISION 8; odek's
// estimate, marked so, where the provider reported none).
func (c *child) account(r *wire.Result) {
	s := c.r.limits.tracker.Snapshot()
	r.TokensUsed = s.InputTokens + s.OutputTokens
	r.Usage = &wire.Usage{InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, ToolCalls: s.ToolCalls, Estimated: s.Estimated}
	if s.Priced || s.Child.CostMicroUSD > 0 {
		cost := s.CostUSD()
		r.CostUSD = &cost
	}
	r.DurationSeconds = c.r.conf.now().Sub(c.r.conf.start).Seconds()
}

// collectArtifacts moves what the child staged into the task's artifact
// root; problems are noted at the end of the summary.
func (c *child) collectArtifacts(r *wire.Result) {
	if c.task.TaskID == "" {
		return
	}
	got := childside.CollectArtifacts(c.wd, c.task.TaskID, c.task.ArtifactRoot)
	r.Artifacts = got.Refs
	if len(got.Problems) > 0 {
		r.Summary = strings.TrimSpace(r.Summary + "\n" + strings.Join(got.Problems, "\n"))
	}
}

// exitError maps the result to the exit code: 0 success or an iteration
// partial, 2 a timeout or time-budget partial, 4 budget, 130 interrupt,
// else 1.
func (c *child) exitError(sig context.Context, r *wire.Result, err error) error {
	if sig.Err() != nil && !budget.IsBudget(err) {
		return err // exitCode: 130
	}
	code := r.ExitCode(errors.Is(err, errHardDeadline))
	switch code {
	case exitcode.OK:
		return nil
	case exitcode.Timeout:
		if err == nil {
			err = errors.New("stopped at the soft deadline with a partial summary")
		}
	}
	if err == nil {
		err = errors.New(r.Error)
	}
	return &exitcode.CodeError{Code: code, Err: err}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/outschema"
)

// runReport is the odek.run-report/v1 object of --output json (DECISION 4);
// docs/schema/run-report.schema.json is its schema.
type runReport struct {
	Schema            string                   `json:"schema"`
	Status            string                   `json:"status"`
	TerminationReason string                   `json:"termination_reason"`
	ExitCode          int                      `json:"exit_code"`
	Answer            string                   `json:"answer,omitempty"`
	Output            json.RawMessage          `json:"output,omitempty"`
	OutputSchemaSHA   string                   `json:"output_schema_sha256,omitempty"`
	Error             string                   `json:"error,omitempty"`
	RunID             string                   `json:"run_id"`
	SessionID         string                   `json:"session_id,omitempty"`
	Model             string                   `json:"model"`
	Iterations        int                      `json:"iterations"`
	InputTokens       int64                    `json:"input_tokens"`
	OutputTokens      int64                    `json:"output_tokens"`
	CachedTokens      int64                    `json:"cached_tokens"`             // input tokens the provider's prompt cache served
	UsageEstimated    bool                     `json:"usage_estimated,omitempty"` // some count is odek's estimate: a provider reported no usage
	CostUSD           *float64                 `json:"cost_usd,omitempty"`
	TotalCostUSD      *float64                 `json:"total_cost_usd,omitempty"` // = cost_usd, under the name Claude Code's report uses
	Budgets           map[string]budget.Budget `json:"budgets,omitempty"`
	BudgetExceeded    map[string]any           `json:"budget_exceeded,omitempty"` // the budget_exceeded event's data
	StallDetected     map[string]any           `json:"stall_detected,omitempty"`  // the stall_detected event's data
	LoopDetected      map[string]any           `json:"loop_detected,omitempty"`   // the loop_detected event's data
	ToolCalls         loopToolCounts           `json:"tool_calls"`
	Denials           []reportDenial           `json:"denials"` // calls the risk policy refused
	DurationMS        int64                    `json:"duration_ms"`
	EventsDropped     int64                    `json:"events_dropped"` // events that did not reach every sink
	LLMDurationMS     int64                    `json:"llm_duration_ms"`
	TTFTMS            int64                    `json:"ttft_ms,omitempty"`
	ReasoningChars    int64                    `json:"reasoning_chars,omitempty"`
	ReasoningTokens   int64                    `json:"reasoning_tokens,omitempty"`
	Artifacts         []reportArtifact         `json:"artifacts,omitempty"`
	// Sandbox is run_started's "sandbox_policy": how shell commands were confined.
	Sandbox map[string]any `json:"sandbox,omitempty"`
	// Hooks counts what lifecycle hooks did; absent when none ran.
	Hooks *reportHooks `json:"hooks,omitempty"`
}

// reportHooks is the report's "hooks": the handlers run, blocking, failed
// and timed out, and the times Stop hooks kept the agent going.
type reportHooks struct {
	hooks.Counts
	StopContinuations int `json:"stop_continuations"`
}

type loopToolCounts struct {
	OK     int `json:"ok"`
	Failed int `json:"failed"`
	Denied int `json:"denied"`
}

// outcome classifies how a run ended: status, termination reason, exit code.
func outcome(ctx context.Context, res *loop.Result, err error) (status, reason string, code int) {
	code = exitcode.Of(ctx, err)
	var be *budget.Error
	switch {
	case err == nil && res.Stop == loop.StopMaxTokens:
		return "partial", "max_tokens", code
	case err == nil && res.Stop == loop.StopMaxIterations:
		return "partial", "max_iterations", code
	case err == nil && res.Stop == loop.StopHookCap:
		return "partial", "max_stop_continuations", code
	case err == nil:
		return "success", "completed", code
	case errors.As(err, new(*loop.MaxIterationsError)): // also a summary that was empty
		return "error", "max_iterations_without_answer", code
	case errors.Is(err, loop.ErrEmptyAnswer):
		return "error", "empty_answer", code
	case errors.Is(err, loop.ErrContentFilter):
		return "error", "content_filter", code
	case errors.As(err, new(*outschema.MismatchError)):
		return "error", "output_schema_mismatch", code
	case errors.As(err, &be):
		return "budget_exhausted", "execution_budget:" + be.Limit, code
	case errors.As(err, new(*liveness.StallError)):
		return "error", "stalled", code
	case errors.As(err, new(*loop.LoopError)):
		return "error", "loop_detected", code
	case errors.As(err, new(*deniedRunError)):
		return "error", "policy_denied", code
	case errors.As(err, new(*hooks.StoppedError)):
		return "error", "hook_stopped", code
	case code == exitcode.Interrupted:
		return "interrupted", "interrupted", code
	case code == exitcode.Setup:
		return "error", "setup_error", code
	default:
		return "error", "error", code
	}
}

// cutAnswerWarning follows an answer the provider cut at its output-token
// limit: the run succeeds (exit 0) with a partial answer.
const cutAnswerWarning = `the answer is cut off: the model stopped at its output-token limit (finish_reason "length")`

// finish prints the answer (or the report) and returns the run's error for
// the exit code.
func (r *agentRun) finish(ctx context.Context, ios *iostreams.IOStreams, o runOptions, res *loop.Result, runErr error) error {
	r.sinks.view.summary(res, runErr)
	if res != nil && runErr == nil && res.Stop == loop.StopMaxTokens {
		printWarnings(ios, []string{cutAnswerWarning})
	}
	if res != nil && runErr == nil && res.Stop == loop.StopHookCap {
		printWarnings(ios, []string{stopCapWarning(r.conf.cfg.MaxStopContinuations)})
	}
	switch {
	case o.output == outputStreamJSON:
		r.sinks.closeEvents() // every event before the report
		if err := r.sinks.stream.WriteLast(r.report(ctx, ios, res, runErr)); err != nil {
			fmt.Fprintf(ios.ErrOut, "odek: writing the run report: %v\n", err)
		}
	case o.output == outputJSON:
		r.sinks.closeEvents() // the count of dropped events is final
		rep := r.report(ctx, ios, res, runErr)
		writeJSON(ios, rep)
	case r.schema != nil: // the matching value alone, or nothing
		if v := r.schema.value(); v != nil && runErr == nil {
			writeAnswer(ios, string(v)) // JSON: on a terminal its escapes stay valid JSON escapes
		}
	case res != nil && res.Answer != "":
		writeAnswer(ios, res.Answer)
	}
	return runErr
}

func (r *agentRun) report(ctx context.Context, ios *iostreams.IOStreams, res *loop.Result, runErr error) runReport {
	status, reason, code := outcome(ctx, res, runErr)
	rep := runReport{
		Schema: "odek.run-report/v1", Status: status, TerminationReason: reason, ExitCode: code,
		RunID: r.conf.runID, Model: r.conf.cfg.Model, Denials: r.tools.denied.all(),
		DurationMS: ios.Now().Sub(r.conf.start).Milliseconds(), Sandbox: r.tools.sandbox.info,
	}
	if runErr != nil {
		rep.Error = exitcode.Shown(ctx, runErr).Error()
	}
	if r.schema != nil {
		rep.OutputSchemaSHA = r.schema.sha256()
		if runErr == nil {
			rep.Output = r.schema.value()
		}
	}
	if res != nil {
		rep.Answer, rep.Iterations = res.Answer, res.Iterations
		rep.InputTokens = res.Usage.Prompt()
		rep.OutputTokens = res.Usage.OutputTokens
		rep.CachedTokens = res.Usage.CacheReadTokens
		rep.UsageEstimated = res.Usage.Estimated
		rep.ToolCalls = loopToolCounts{res.ToolCalls.OK, res.ToolCalls.Failed, res.ToolCalls.Denied}
		rep.LLMDurationMS = res.LLMDuration.Milliseconds()
		rep.TTFTMS = res.TimeToFirstToken.Milliseconds()
		rep.ReasoningChars, rep.ReasoningTokens = res.ReasoningChars, res.ReasoningTokens
	}
	if r.session != nil {
		rep.SessionID = r.session.sess.ID
	}
	rep.Artifacts = reportArtifacts(r.tools.store)
	rep.EventsDropped = r.sinks.emitter.Dropped()
	if r.limits.tracker != nil {
		snap := r.limits.tracker.Snapshot()
		rep.Budgets = snap.Budgets()
		rep.UsageEstimated = rep.UsageEstimated || snap.Estimated // a sub-agent's estimate too
		if snap.Priced {
			c := snap.CostUSD()
			rep.CostUSD, rep.TotalCostUSD = &c, &c
		}
	}
	reportBudgetStop(&rep, runErr)
	reportStuck(&rep, runErr)
	rep.Hooks = r.reportHooks(res)
	return rep
}

// reportStuck puts a stall or a loop into the report, with the data of the
// event that announced it.
func reportStuck(rep *runReport, err error) {
	var se *liveness.StallError
	var le *loop.LoopError
	switch {
	case errors.As(err, &se):
		rep.StallDetected = se.Data()
	case errors.As(err, &le):
		rep.LoopDetected = le.Data()
	}
}

// reportHooks is the report's hooks object; nil when the run had none.
func (r *agentRun) reportHooks(res *loop.Result) *reportHooks {
	rn := r.hookRunner()
	if rn == nil {
		return nil
	}
	h := &reportHooks{Counts: rn.Counts()}
	if res != nil {
		h.StopContinuations = res.StopContinuations
	}
	return h
}

// reportBudgetStop puts the exhausted budget into the report with the
// numbers of the error and the event. Its "used" stays what was spent: the
// tokens and cost of sub-agents still running when the stop came are
// charged after it, so they may exceed the observed value the stop was
// decided on, never fall below it (issue 34); a tool-call stop keeps the
// calls that ran (the refused batch never ran). Only the runtime's "used"
// is the observed value: the clock moved on while the run closed.
func reportBudgetStop(rep *runReport, err error) {
	var be *budget.Error
	if !errors.As(err, &be) {
		return
	}
	rep.BudgetExceeded = be.EventData()
	if b, ok := rep.Budgets[be.Limit]; ok && be.Limit == budget.LimitRuntime {
		b.Used = be.Observed
		rep.Budgets[be.Limit] = b
	}
}

// writeSetupReport prints the report of a run that never started; r is nil
// when it failed before setting up (flags, arguments), else as far as its
// setup got.
func writeSetupReport(ctx context.Context, ios *iostreams.IOStreams, r *agentRun, err error) {
	status, reason, code := outcome(ctx, nil, err)
	rep := runReport{
		Schema: "odek.run-report/v1", Status: status, TerminationReason: reason, ExitCode: code,
		Error: err.Error(), RunID: events.NewRunID(), Denials: []reportDenial{},
	}
	if r != nil {
		rep.RunID, rep.DurationMS = r.conf.runID, ios.Now().Sub(r.conf.start).Milliseconds()
		if r.tools != nil {
			rep.Sandbox = r.tools.sandbox.info
		}
		if r.conf.cfg != nil {
			rep.Model = r.conf.cfg.Model
		}
	}
	writeJSON(ios, rep)
}

// writeAnswer prints the final answer: byte for byte when stdout is a pipe
// or file, made safe for a terminal when it is one (the model may have been
// steered into writing escape sequences).
func writeAnswer(ios *iostreams.IOStreams, answer string) {
	if ios.StdoutTTY {
		answer = termText(answer)
	}
	fmt.Fprintln(ios.Out, answer)
}

func writeJSON(ios *iostreams.IOStreams, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "odek: encoding the run report: %v\n", err)
		return
	}
	// The report carries the answer and error texts; on a terminal the
	// controls encoding/json leaves raw (DEL, C1, bidi) become \uXXXX, which
	// are valid JSON escapes of the same strings.
	io.WriteString(ios.Out, termTextIfTTY(ios, string(b))+"\n")
}

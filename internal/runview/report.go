package runview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/outschema"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

// Report is the odek.run-report/v1 object of --output json (DECISION 4);
// docs/schema/run-report.schema.json is its schema.
type Report struct {
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
	ParentSessionID   string                   `json:"parent_session_id,omitempty"` // continue --fork: the session copied
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
	ToolCalls         ToolCounts               `json:"tool_calls"`
	Denials           []Denial                 `json:"denials"` // calls the risk policy refused
	DurationMS        int64                    `json:"duration_ms"`
	EventsDropped     int64                    `json:"events_dropped"` // events that did not reach every sink
	LLMDurationMS     int64                    `json:"llm_duration_ms"`
	TTFTMS            int64                    `json:"ttft_ms,omitempty"`
	ReasoningChars    int64                    `json:"reasoning_chars,omitempty"`
	ReasoningTokens   int64                    `json:"reasoning_tokens,omitempty"`
	Artifacts         []Artifact               `json:"artifacts,omitempty"`
	// Sandbox is run_started's "sandbox_policy": how shell commands were confined.
	Sandbox map[string]any `json:"sandbox,omitempty"`
	// Hooks counts what lifecycle hooks did; absent when none ran.
	Hooks *ReportHooks `json:"hooks,omitempty"`
	// AgentsFiles are the project instructions (AGENTS.md) the system
	// prompt carried; absent when none were read.
	AgentsFiles []AgentsFile `json:"agents_files,omitempty"`
	// Models are the models that served the run and what each used, in
	// the order they first did; absent before the first response.
	Models []ReportModel `json:"models,omitempty"`
	// ProjectFile is the project file (odek.json) the config read, found
	// from the working directory up to the repository root; absent when
	// there was none.
	ProjectFile string `json:"project_file,omitempty"`
}

// ReportHooks is the report's "hooks": the handlers run, blocking, failed
// and timed out, and the times Stop hooks kept the agent going.
type ReportHooks struct {
	hooks.Counts
	StopContinuations int `json:"stop_continuations"`
}

// ToolCounts are the report's tool_calls.
type ToolCounts struct {
	OK     int `json:"ok"`
	Failed int `json:"failed"`
	Denied int `json:"denied"`
}

// Facts are what a report says about a run beside how it ended, read at
// the moment the report is made.
type Facts struct {
	RunID, Model, SessionID string
	ParentSessionID         string // the session a fork was copied from
	ProjectFile             string // the project file (odek.json) the config read; "" for none
	Start                   time.Time
	Denials                 []Denial
	Sandbox                 map[string]any
	OutputSchema            bool            // --output-schema held the answer
	OutputSchemaSHA         string          // the schema file's digest
	Output                  json.RawMessage // the answer's value once it matched the schema
	Artifacts               []Artifact
	EventsDropped           int64
	Budget                  *budget.Snapshot // nil when the run has no tracker
	Hooks                   *hooks.Counts    // what the hooks did; nil when the run has none
	AgentsFiles             []AgentsFile     // the AGENTS.md files read, in order
	// Models is the usage of each model that served the run, in the order
	// they first did (more than one after a fallback).
	Models []budget.ModelUsage
}

// ReportModel is one model that served the run, as the report's models
// name it.
type ReportModel struct {
	Model        string   `json:"model"`
	Responses    int64    `json:"responses"`
	InputTokens  int64    `json:"input_tokens"`
	OutputTokens int64    `json:"output_tokens"`
	CostUSD      *float64 `json:"cost_usd,omitempty"` // absent when the model's tokens had no price
}

// reportModels are the report's models: nil when none served.
func reportModels(ms []budget.ModelUsage) []ReportModel {
	var out []ReportModel
	for _, m := range ms {
		rm := ReportModel{Model: m.Model, Responses: m.Responses, InputTokens: m.InputTokens, OutputTokens: m.OutputTokens}
		if m.Priced {
			c := float64(m.CostMicroUSD) / 1e6
			rm.CostUSD = &c
		}
		out = append(out, rm)
	}
	return out
}

// AgentsFile is one project instructions file (AGENTS.md) a run read, as
// the report's and run_started's agents_files name it.
type AgentsFile struct {
	Name       string `json:"name"`  // as the model saw it: relative to the repository root, or $ODEK_HOME/AGENTS.md
	Scope      string `json:"scope"` // "operator" or "repository"
	SHA256     string `json:"sha256"`
	Bytes      int64  `json:"bytes"`       // the file's size
	ShownBytes int    `json:"shown_bytes"` // what the model was given of it
	Truncated  bool   `json:"truncated"`   // cut (or left out) at agents_max_bytes
}

// Outcome classifies how a run ended: status, termination reason, exit code.
func Outcome(ctx context.Context, res *loop.Result, err error) (status, reason string, code int) {
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
	case errors.As(err, new(*DeniedRunError)):
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

// CutAnswerWarning follows an answer the provider cut at its output-token
// limit: the run succeeds (exit 0) with a partial answer.
const CutAnswerWarning = `the answer is cut off: the model stopped at its output-token limit (finish_reason "length")`

// StopCapWarning follows an answer a Stop hook still did not accept when
// max_stop_continuations (n) ran out: the run ends with it (exit 0, partial).
func StopCapWarning(n int) string {
	return fmt.Sprintf("a Stop hook still did not accept the answer after %d continuation(s) (max_stop_continuations); the run ends with it", n)
}

// NewReport is the report of a run that ran: how it ended (res, runErr;
// ctx is the signal context) and the facts f, its duration measured now.
func NewReport(ctx context.Context, ios *iostreams.IOStreams, f Facts, res *loop.Result, runErr error) Report {
	status, reason, code := Outcome(ctx, res, runErr)
	rep := Report{
		Schema: "odek.run-report/v1", Status: status, TerminationReason: reason, ExitCode: code,
		RunID: f.RunID, Model: f.Model, Denials: f.Denials,
		DurationMS: ios.Now().Sub(f.Start).Milliseconds(), Sandbox: f.Sandbox,
	}
	if runErr != nil {
		rep.Error = exitcode.Shown(ctx, runErr).Error()
	}
	if f.OutputSchema {
		rep.OutputSchemaSHA = f.OutputSchemaSHA
		if runErr == nil {
			rep.Output = f.Output
		}
	}
	if res != nil {
		rep.Answer, rep.Iterations = res.Answer, res.Iterations
		rep.InputTokens = res.Usage.Prompt()
		rep.OutputTokens = res.Usage.OutputTokens
		rep.CachedTokens = res.Usage.CacheReadTokens
		rep.UsageEstimated = res.Usage.Estimated
		rep.ToolCalls = ToolCounts{res.ToolCalls.OK, res.ToolCalls.Failed, res.ToolCalls.Denied}
		rep.LLMDurationMS = res.LLMDuration.Milliseconds()
		rep.TTFTMS = res.TimeToFirstToken.Milliseconds()
		rep.ReasoningChars, rep.ReasoningTokens = res.ReasoningChars, res.ReasoningTokens
	}
	rep.SessionID, rep.ParentSessionID = f.SessionID, f.ParentSessionID
	rep.AgentsFiles = f.AgentsFiles
	rep.ProjectFile = f.ProjectFile
	rep.Models = reportModels(f.Models)
	rep.Artifacts = f.Artifacts
	rep.EventsDropped = f.EventsDropped
	if snap := f.Budget; snap != nil {
		rep.Budgets = snap.Budgets()
		rep.UsageEstimated = rep.UsageEstimated || snap.Estimated // a sub-agent's estimate too
		if snap.Priced {
			c := snap.CostUSD()
			rep.CostUSD, rep.TotalCostUSD = &c, &c
		}
	}
	budgetStop(&rep, runErr)
	stuck(&rep, runErr)
	if f.Hooks != nil {
		rep.Hooks = &ReportHooks{Counts: *f.Hooks}
		if res != nil {
			rep.Hooks.StopContinuations = res.StopContinuations
		}
	}
	return rep
}

// stuck puts a stall or a loop into the report, with the data of the event
// that announced it.
func stuck(rep *Report, err error) {
	var se *liveness.StallError
	var le *loop.LoopError
	switch {
	case errors.As(err, &se):
		rep.StallDetected = se.Data()
	case errors.As(err, &le):
		rep.LoopDetected = le.Data()
	}
}

// budgetStop puts the exhausted budget into the report with the numbers of
// the error and the event. Its "used" stays what was spent: the tokens and
// cost of sub-agents still running when the stop came are charged after
// it, so they may exceed the observed value the stop was decided on, never
// fall below it (issue 34); a tool-call stop keeps the calls that ran (the
// refused batch never ran). Only the runtime's "used" is the observed
// value: the clock moved on while the run closed.
func budgetStop(rep *Report, err error) {
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

// WriteSetupReport prints the report of a run that never started; f is
// nil when it failed before setting up (flags, arguments), else the facts
// as far as its setup got (run id, start, model, sandbox).
func WriteSetupReport(ctx context.Context, ios *iostreams.IOStreams, f *Facts, err error) {
	status, reason, code := Outcome(ctx, nil, err)
	rep := Report{
		Schema: "odek.run-report/v1", Status: status, TerminationReason: reason, ExitCode: code,
		Error: err.Error(), RunID: events.NewRunID(), Denials: []Denial{},
	}
	if f != nil {
		rep.RunID, rep.DurationMS = f.RunID, ios.Now().Sub(f.Start).Milliseconds()
		rep.Sandbox, rep.Model = f.Sandbox, f.Model
	}
	WriteJSON(ios, rep)
}

// WriteAnswer prints the final answer: byte for byte when stdout is a pipe
// or file, made safe for a terminal when it is one (the model may have been
// steered into writing escape sequences).
func WriteAnswer(ios *iostreams.IOStreams, answer string) {
	if ios.StdoutTTY {
		answer = untrusted.Terminal(answer)
	}
	fmt.Fprintln(ios.Out, answer)
}

// WriteJSON prints v as one line of JSON on stdout (the run report).
func WriteJSON(ios *iostreams.IOStreams, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "odek: encoding the run report: %v\n", err)
		return
	}
	// The report carries the answer and error texts; on a terminal the
	// controls encoding/json leaves raw (DEL, C1, bidi) become \uXXXX, which
	// are valid JSON escapes of the same strings.
	io.WriteString(ios.Out, StdoutText(ios, string(b))+"\n")
}

// WriteChildResult prints a sub-agent's result object as the one line on
// stdout a parent reads when nothing else was written (a setup failure).
func WriteChildResult(ios *iostreams.IOStreams, r *wire.Result) {
	b, _ := json.Marshal(r)
	fmt.Fprintf(ios.Out, "%s\n", b)
}

package wire

import (
	"encoding/json"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/untrusted"
)

// Statuses a child reports, and the ones the parent adds when a child ends
// without a result.
const (
	StatusSuccess         = "success"
	StatusPartial         = "partial"
	StatusBudgetExhausted = "budget_exhausted"
	StatusError           = "error"

	StatusKilledFlood = "killed_flood"
	StatusTimeout     = "timeout"
	StatusCancelled   = "cancelled"
	StatusNoResult    = "no_result"
)

// Caps of a result's lists and entries: what a child may report and what
// Bound keeps of it.
const (
	maxReportedFiles   = 100 // files_changed entries
	maxReportedDenials = 20
	maxFileRunes       = 256
	maxDenialRunes     = 200
)

// Partial reasons.
const (
	ReasonTime      = "time_budget"
	ReasonIteration = "iteration_budget"
	ReasonExecution = "execution_budget"
)

// Result is the child's result object (docs/SUBAGENTS.md), printed as one JSON
// object or framed in a "result" stream line. Fields the parent does not
// know are ignored (the contract's additive rule).
type Result struct {
	Status           string   `json:"status"`
	Error            string   `json:"error,omitempty"`
	PartialReason    string   `json:"partial_reason,omitempty"`
	Summary          string   `json:"summary"`
	SummaryTruncated bool     `json:"summary_truncated,omitempty"`
	SummaryRunes     int      `json:"summary_runes,omitempty"`
	FilesChanged     []string `json:"files_changed,omitempty"`
	// TokensUsed is the provider-reported input + output tokens (DECISION 8).
	TokensUsed      int64    `json:"tokens_used"`
	Iterations      int      `json:"iterations"`
	DurationSeconds float64  `json:"duration_seconds"`
	Denials         []Denial `json:"denials,omitempty"`
	DenialsTotal    int      `json:"denials_total,omitempty"`
	ParentSession   string   `json:"parent_session,omitempty"`
	CostUSD         *float64 `json:"cost_usd,omitempty"`
	// Artifacts are odek.artifact-ref/v1 refs into the task's artifact root.
	Artifacts []artifact.Ref `json:"artifacts,omitempty"`

	// Usage splits TokensUsed for share-mode charge-back (additive).
	Usage *Usage `json:"usage,omitempty"`
	// Output is the final answer's JSON value when an output schema was in
	// force and the answer matched it (additive); Summary keeps the text.
	Output json.RawMessage `json:"output,omitempty"`

	// OdekVersion is the child's odek version (additive): a remote runner,
	// whose child is another binary on another machine, refuses a result
	// whose version is not its parent's.
	OdekVersion string `json:"odek_version,omitempty"`

	// Raw is a result-less child's unparseable stdout (parent side only).
	Raw string `json:"-"`
}

// Usage is what the child spent, as its provider and tracker counted it.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"` // prompt + cache tokens
	OutputTokens int64 `json:"output_tokens"`
	ToolCalls    int64 `json:"tool_calls"`
	// Estimated (additive): the child's provider reported no usage for
	// some call, and the counts are, in part, the child's estimate.
	Estimated bool `json:"estimated,omitempty"`
}

// Denial is one policy denial the child met.
type Denial struct {
	Tool   string `json:"tool"`
	Class  string `json:"class,omitempty"`
	Reason string `json:"reason"`
}

// Stream line types of protocol 2 (--stream).
const (
	LineToolCall   = "tool_call"
	LineToolResult = "tool_result"
	LineStarted    = "subagent_started"
	LineProgress   = "subagent_progress"
	LineFinished   = "subagent_finished"
	LineEvent      = "event" // a forwarded odek.event/v1 event (additive)
	LineResult     = "result"
)

// Line is one typed stream line. Only the fields of its type are set.
type Line struct {
	Type   string          `json:"type"`
	TaskID string          `json:"task_id,omitempty"`
	Name   string          `json:"name,omitempty"`
	Data   map[string]any  `json:"data,omitempty"`
	Event  json.RawMessage `json:"event,omitempty"`
	Result *Result         `json:"result,omitempty"`

	// Lifecycle fields.
	PID        int      `json:"pid,omitempty"`
	Depth      int      `json:"depth,omitempty"`
	TimeoutS   int      `json:"timeout_s,omitempty"`
	MaxIter    int      `json:"max_iter,omitempty"`
	Step       int      `json:"step,omitempty"`
	Tool       string   `json:"tool,omitempty"`
	Status     string   `json:"status,omitempty"`
	Iterations int      `json:"iterations,omitempty"`
	DurationS  float64  `json:"duration_s,omitempty"`
	TokensUsed int64    `json:"tokens_used,omitempty"`
	CostUSD    *float64 `json:"cost_usd,omitempty"`
	Artifacts  int      `json:"artifacts,omitempty"`
}

// ExitCode maps a result to the child's exit code (docs/SUBAGENTS.md): budget 4,
// timeouts 2 (a hard timeout and a time_budget partial), an iteration
// partial and success 0, any other error 1. Setup errors (3) and interrupts
// (130) are decided by the caller before a result exists.
func (r *Result) ExitCode(hardTimeout bool) int {
	switch {
	case r.Status == StatusBudgetExhausted:
		return 4
	case hardTimeout:
		return 2
	case r.Status == StatusPartial && r.PartialReason == ReasonTime:
		return 2
	case r.Status == StatusSuccess, r.Status == StatusPartial:
		return 0
	}
	return 1
}

// Bound caps what a child reported, field by field, as the parent must:
// the result is untrusted.
func (r *Result) Bound() {
	if len(r.FilesChanged) > maxReportedFiles {
		r.FilesChanged = r.FilesChanged[:maxReportedFiles]
	}
	if len(r.Denials) > maxReportedDenials {
		r.Denials = r.Denials[:maxReportedDenials]
	}
	for i := range r.Denials {
		r.Denials[i].Tool = untrusted.OneLine(r.Denials[i].Tool, 64)
		r.Denials[i].Class = untrusted.OneLine(r.Denials[i].Class, 32)
		r.Denials[i].Reason = untrusted.OneLine(r.Denials[i].Reason, maxDenialRunes)
	}
	if r.TokensUsed < 0 {
		r.TokensUsed = 0
	}
	if r.Iterations < 0 {
		r.Iterations = 0
	}
	if !(r.DurationSeconds >= 0) {
		r.DurationSeconds = 0
	}
	r.Summary, _ = cutRunes(r.Summary, MaxSummaryRunes)
}

// CutSummary shortens a summary to MaxSummaryRunes runes and "…",
// reporting whether it cut.
func CutSummary(s string) (string, bool) { return cutRunes(s, MaxSummaryRunes) }

// cutRunes keeps the first n runes of s, reporting whether it cut.
func cutRunes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…", true
		}
		count++
	}
	return s, false
}

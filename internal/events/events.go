// Package events produces odek's versioned runtime event stream
// (odek.event/v1): one JSON object per line, consumed by CI and auditors.
//
// Invariants:
//   - Emit never blocks the agent loop: events go over a buffered channel and
//     are dropped (and counted) when it is full. The final events (IsFinal)
//     wait for room instead while the sinks deliver, so a run's end is never
//     lost to a burst; failed writes are counted too (Dropped).
//   - One goroutine per Emitter drains the channel: it redacts a copy of every
//     string in tool and data, then calls the sinks. Sinks run only there, so a
//     slow disk never slows the loop (the JSONL sink writes each line at once
//     and fsyncs by group commit on a goroutine of its own).
//   - A failing or panicking sink is reported once and cannot crash the run.
//   - Tool arguments are never emitted raw unless the caller opts in; the
//     helpers here summarise them by hash, size and low-cardinality fields.
//   - The package is a leaf: redaction arrives as a func, and typed errors of
//     other packages name their class through the Classifier interface.
package events

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Schema is the envelope's schema value.
const Schema = "odek.event/v1"

// Type is an event type. New types are additive; consumers ignore unknown ones.
type Type string

// Event types of the odek.event/v1 contract.
const (
	RunStarted              Type = "run_started"
	IterationCompleted      Type = "iteration_completed"
	ToolCallStarted         Type = "tool_call_started"
	ToolCallCompleted       Type = "tool_call_completed"
	ToolCallFailed          Type = "tool_call_failed"
	SessionSaved            Type = "session_saved"
	ContextTrimmed          Type = "context_trimmed"
	BudgetExceeded          Type = "budget_exceeded"
	RunCompleted            Type = "run_completed"
	RunFailed               Type = "run_failed"
	PlanCreated             Type = "plan_created"
	PlanUpdated             Type = "plan_updated"
	PlanBlocked             Type = "plan_blocked"
	SubagentDenied          Type = "subagent_denied"
	SubagentSpawned         Type = "subagent_spawned"
	SubagentCompleted       Type = "subagent_completed"
	SubagentConcurrencyWait Type = "subagent_concurrency_wait"
	SideCallUsage           Type = "side_call_usage" // optional (newer upstream)
	// MCPInput: an MCP server asked for input and odek answered it from
	// the configured values or declined.
	MCPInput Type = "mcp_input"
	// MCPProgress: an MCP tool reported progress (at most one a second per call).
	MCPProgress Type = "mcp_progress"
	// MCPServerSkipped: a server marked required: false failed to start and
	// the run goes on without its tools (it may come before run_started).
	MCPServerSkipped Type = "mcp_server_skipped"
	// MCPServerRestarted: a server that exited (or forgot its HTTP session)
	// was started again.
	MCPServerRestarted Type = "mcp_server_restarted"
	// MCPServerLost: a server went away and is not started again.
	MCPServerLost Type = "mcp_server_lost"
	// MCPTask: a call's task (MCP Tasks extension) changed status.
	MCPTask Type = "mcp_task"
	// SubagentEvent carries one event of a sub-agent whole, as its data's
	// "event", with the task's "task_id" (DECISION 28): a child's events
	// never appear at the top level of its parent's stream.
	SubagentEvent Type = "subagent_event"
	// RunHeartbeat: the run is alive; what it is doing, how long since
	// anything showed progress, what it spent (every heartbeat_seconds).
	RunHeartbeat Type = "run_heartbeat"
	// StallDetected: nothing showed progress for stall_timeout_seconds;
	// run_failed (error_class stalled) follows.
	StallDetected Type = "stall_detected"
	// LoopHint: the model repeated a call, or a tool kept failing, and was
	// told so in a system message.
	LoopHint Type = "loop_hint"
	// LoopDetected: the repetition went on to loop_breaker.stop_after;
	// run_failed (error_class loop_detected) follows.
	LoopDetected Type = "loop_detected"
	// HookStarted and HookCompleted: a lifecycle hook (docs/HOOKS.md) ran,
	// with its event, matcher, command and, on completion, its decision,
	// exit code and duration.
	HookStarted   Type = "hook_started"
	HookCompleted Type = "hook_completed"
	// ModelFallback: the model in use was overloaded or kept failing
	// (llm.fallback_models), and the run moved to the next model for the
	// rest of its life.
	ModelFallback Type = "model_fallback"
)

// Types lists every type above, in contract order.
var Types = []Type{
	RunStarted, IterationCompleted, ToolCallStarted, ToolCallCompleted, ToolCallFailed,
	SessionSaved, ContextTrimmed, BudgetExceeded, RunCompleted, RunFailed,
	PlanCreated, PlanUpdated, PlanBlocked, SubagentDenied, SubagentSpawned,
	SubagentCompleted, SubagentConcurrencyWait, SideCallUsage, MCPInput, MCPProgress, SubagentEvent,
	MCPServerSkipped, MCPServerRestarted, MCPServerLost, MCPTask,
	RunHeartbeat, StallDetected, LoopHint, LoopDetected, HookStarted, HookCompleted, ModelFallback,
}

// Event is one line of the stream. Zero session_id, parent_run_id, task_id,
// iteration, tool and data are omitted; Timestamp is written in UTC with sub-second precision.
type Event struct {
	Schema    string `json:"schema"`
	Type      Type   `json:"type"`
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id,omitempty"`
	// ParentRunID is the run_id of the run that started this one as a
	// sub-agent, and TaskID the task it runs; both absent at the top level.
	ParentRunID string `json:"parent_run_id,omitempty"`
	TaskID      string `json:"task_id,omitempty"`
	Iteration   int    `json:"iteration,omitempty"`
	Tool        string `json:"tool,omitempty"`
	// TraceID and SpanID join the event to the run's trace when it is
	// traced (docs/TELEMETRY.md): the trace, and the run's invoke_agent
	// span. Both absent otherwise.
	TraceID   string         `json:"trace_id,omitempty"`
	SpanID    string         `json:"span_id,omitempty"`
	Timestamp time.Time      `json:"timestamp"`
	Data      map[string]any `json:"data,omitempty"`
}

// MarshalJSON forces the timestamp to UTC, whatever clock stamped it.
func (e Event) MarshalJSON() ([]byte, error) {
	p := plainEvent(e)
	p.Timestamp = p.Timestamp.UTC()
	return json.Marshal(p)
}

// plainEvent is Event without MarshalJSON (no recursion; the JSONL sink
// encodes it directly, in one pass).
type plainEvent Event

// NewRunID returns a random 128-bit identifier as 32 lowercase hex digits.
func NewRunID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it aborts the program instead)
	return hex.EncodeToString(b[:])
}

package hooks

import (
	"encoding/json"

	"github.com/odek-run/odek/internal/llm"
)

// Input is one firing of an event, as the caller knows it. Fields that do
// not belong to the event are left zero.
type Input struct {
	Event     Event
	Iteration int // for the events; 0 outside an iteration

	// Tool events.
	Tool        string          // odek's name: shell, write_file, server__tool
	CallID      string          // tool_use_id
	Args        json.RawMessage // tool_input, odek's argument names
	Response    string          // PostToolUse: the result's text
	Error       string          // PostToolUseFailure, PermissionDenied, StopFailure
	Interrupted bool            // PostToolUseFailure: cut by an interrupt or a budget

	Prompt      string // UserPromptSubmit: the task
	StopActive  bool   // Stop, SubagentStop: a Stop hook already kept the agent going
	LastMessage string // Stop, SubagentStop: the final answer
	Source      string // SessionStart: startup or resume
	Reason      string // SessionEnd: why the run ended
	Trigger     string // PreCompact: auto
	Model       string // SessionStart

	// Notification.
	Message, Title, NotificationType string

	// SubagentStart, SubagentStop: the sub-agent's task id and profile.
	AgentID, AgentType string

	// History is the conversation so far (the transcript is brought up to
	// date with it before the hooks run) and Pending an assistant message
	// whose calls are running and which the history gets after them.
	History []llm.Message
	Pending *llm.Message
}

// payload is the JSON a hook reads: Claude Code's field names.
type payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  Event  `json:"hook_event_name"`
	// AgentID and AgentType: in a sub-agent, its own task; in
	// SubagentStart/Stop, the sub-agent's.
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`

	ToolName       string          `json:"tool_name,omitempty"`
	ClaudeToolName string          `json:"claude_tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   *string         `json:"tool_response,omitempty"`
	Error          string          `json:"error,omitempty"`
	IsInterrupt    *bool           `json:"is_interrupt,omitempty"`

	Prompt               *string `json:"prompt,omitempty"`
	StopHookActive       *bool   `json:"stop_hook_active,omitempty"`
	LastAssistantMessage *string `json:"last_assistant_message,omitempty"`
	Source               string  `json:"source,omitempty"`
	Model                string  `json:"model,omitempty"`
	Reason               string  `json:"reason,omitempty"`
	Trigger              string  `json:"trigger,omitempty"`
	CustomInstructions   *string `json:"custom_instructions,omitempty"`
	Message              string  `json:"message,omitempty"`
	Title                string  `json:"title,omitempty"`
	NotificationType     string  `json:"notification_type,omitempty"`
}

// maxResponseBytes caps the tool_response a hook is given.
const maxResponseBytes = 256 << 10

// encode builds the JSON a hook reads for in.
func (r *Runner) encode(in Input, transcript string) ([]byte, error) {
	p := payload{
		SessionID: r.o.SessionID(), TranscriptPath: transcript, Cwd: r.o.Dir,
		PermissionMode: r.o.PermissionMode, HookEventName: in.Event,
		AgentID: r.o.AgentID, AgentType: r.o.AgentType,
	}
	red := r.o.Redact
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionDenied:
		p.ToolName, p.ClaudeToolName, p.ToolUseID = in.Tool, claudeName(in.Tool), in.CallID
		p.ToolInput = json.RawMessage(red(string(claudeInput(in.Tool, in.Args, r.o.Dir))))
		if !json.Valid(p.ToolInput) {
			p.ToolInput = nil
		}
		switch in.Event {
		case PostToolUse:
			resp := clip(red(in.Response), maxResponseBytes) // masked whole, then cut: a secret across the cut leaves no prefix
			p.ToolResponse = &resp
		case PostToolUseFailure:
			p.Error, p.IsInterrupt = red(in.Error), &in.Interrupted
		case PermissionDenied:
			p.Reason = red(in.Error)
		}
	case UserPromptSubmit:
		prompt := red(in.Prompt)
		p.Prompt = &prompt
	case Stop, SubagentStop:
		last := red(in.LastMessage)
		p.StopHookActive, p.LastAssistantMessage = &in.StopActive, &last
	case StopFailure:
		p.Error = red(in.Error)
	case SessionStart:
		p.Source, p.Model = in.Source, in.Model
	case SessionEnd:
		p.Reason = in.Reason
	case PreCompact:
		empty := ""
		p.Trigger, p.CustomInstructions = in.Trigger, &empty
	case Notification:
		p.Message, p.Title, p.NotificationType = red(in.Message), red(in.Title), in.NotificationType
	}
	if in.Event == SubagentStart || in.Event == SubagentStop {
		p.AgentID, p.AgentType = in.AgentID, in.AgentType
	}
	return marshal(p) // "a > b" as Claude Code writes it, not "a \u003e b"
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

package hooks

// Event is a hook event, by Claude Code's name.
type Event string

// The events odek fires (docs/HOOKS.md says where each one fires).
const (
	SessionStart       Event = "SessionStart"
	UserPromptSubmit   Event = "UserPromptSubmit"
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	PermissionDenied   Event = "PermissionDenied"
	SubagentStart      Event = "SubagentStart"
	SubagentStop       Event = "SubagentStop"
	PreCompact         Event = "PreCompact"
	Stop               Event = "Stop"
	StopFailure        Event = "StopFailure"
	SessionEnd         Event = "SessionEnd"
	Notification       Event = "Notification"
)

// Events lists the events odek fires, in the order a run meets them.
var Events = []Event{
	SessionStart, UserPromptSubmit, PreToolUse, PermissionDenied, PostToolUse, PostToolUseFailure,
	SubagentStart, SubagentStop, PreCompact, Notification, Stop, StopFailure, SessionEnd,
}

// unmapped are Claude Code's events odek has no moment for, with the reason
// a config naming one is told. Such a group is skipped with a warning, so a
// Claude settings block copied whole still loads.
var unmapped = map[string]string{
	"PermissionRequest":   "odek asks the operator itself, and a hook's allow must never widen what the policy refuses; Notification fires when a prompt is asked or refused",
	"PostToolBatch":       "PostToolUse fires for each call of a batch",
	"UserPromptExpansion": "odek has no slash commands",
	"Setup":               "odek has no install or maintenance step",
	"PostCompact":         "odek's compaction is one side call; PreCompact fires before it",
	"TeammateIdle":        "odek has no teammates",
	"TaskCreated":         "odek has no task list; SubagentStart fires for each delegated task",
	"TaskCompleted":       "odek has no task list; SubagentStop fires for each delegated task",
	"WorktreeCreate":      "odek creates no worktrees",
	"WorktreeRemove":      "odek creates no worktrees",
	"ConfigChange":        "odek reads its config once, at start",
	"InstructionsLoaded":  "odek loads no instruction files",
	"CwdChanged":          "a run's working directory never changes",
	"FileChanged":         "odek watches no files",
	"DirectoryAdded":      "a run works in one directory",
	"Elicitation":         "MCP input requests are answered from the config, never by a dialog",
	"ElicitationResult":   "MCP input requests are answered from the config, never by a dialog",
	"PreModelSwitch":      "a run keeps one model",
	"PostModelSwitch":     "a run keeps one model",
	"MessageDisplay":      "odek prints only the final answer",
}

// known reports whether odek fires e.
func known(e Event) bool {
	for _, k := range Events {
		if k == e {
			return true
		}
	}
	return false
}

// toolEvent reports an event about one tool call: its matcher is matched
// against the tool's names.
func toolEvent(e Event) bool {
	return e == PreToolUse || e == PostToolUse || e == PostToolUseFailure || e == PermissionDenied
}

// blocks reports whether exit code 2 (or decision "block") changes what
// happens next at e; elsewhere it is only shown to the operator.
func blocks(e Event) bool {
	switch e {
	case PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop, PreCompact:
		return true
	}
	return false
}

// takesContext reports whether plain stdout of a hook that exits 0 is
// context for the model (Claude Code's rule for these two events).
func takesContext(e Event) bool { return e == SessionStart || e == UserPromptSubmit }

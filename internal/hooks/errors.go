package hooks

import (
	"errors"

	"github.com/odek-run/odek/internal/errclass"
)

// errNotDirect: a command line bash must run.
var errNotDirect = errors.New("hooks: not a plain command")

// ConfigError is a "hooks" value odek cannot run: Path is where in the
// value ("hooks.PreToolUse[0].matcher"). The config loader names the file;
// it is a setup error (exit 3).
type ConfigError struct {
	Path string
	Msg  string
}

func (e *ConfigError) Error() string { return e.Path + ": " + e.Msg }

// ErrorClass returns "setup_error".
func (e *ConfigError) ErrorClass() string { return errclass.SetupError }

// StoppedError is a hook that stopped the run: "continue": false in its
// answer, or a UserPromptSubmit hook that refused the task. It is the
// operator's policy speaking (error_class policy_denied, exit 1).
type StoppedError struct {
	Event  Event
	Reason string // the hook's stopReason or reason, cleaned; may be ""
}

func (e *StoppedError) Error() string {
	msg := "a " + string(e.Event) + " hook stopped the run"
	if e.Event == UserPromptSubmit {
		msg = "a UserPromptSubmit hook refused the task"
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// ErrorClass returns "policy_denied".
func (e *StoppedError) ErrorClass() string { return errclass.PolicyDenied }

// BlockedError is a tool call a PreToolUse hook blocked (exit 2, a deny,
// or an ask nobody could answer): the call's result, counted as denied.
type BlockedError struct {
	Tool string
	Why  string // the hook's reason, cleaned; may be ""
}

func (e *BlockedError) Error() string {
	msg := "blocked by a PreToolUse hook"
	if e.Why != "" {
		msg += ": " + e.Why
	}
	return msg
}

// Denied marks the error as a refusal (loop counts it as denied).
func (e *BlockedError) Denied() bool { return true }

// RiskClass and Reason describe the refusal in tool_call_failed events.
func (e *BlockedError) RiskClass() string { return "hook" }

// Reason is the hook's reason, one line.
func (e *BlockedError) Reason() string { return oneLine(e.Why, 200) }

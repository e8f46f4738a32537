package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Result is what the hooks of one firing decided together.
type Result struct {
	// Block: a hook blocked. PreToolUse: the call does not run (a deny);
	// Stop, SubagentStop: the agent goes on; UserPromptSubmit: the task is
	// refused; PreCompact: no digest is made; PostToolUse: Reason goes to
	// the model beside the result.
	Block bool
	// Ask: a PreToolUse hook wants the operator to approve the call (a
	// denial where nobody can answer).
	Ask bool
	// Reason says why, for the model (or, with Ask, the operator): cleaned,
	// one hook's reason per line.
	Reason string
	// UpdatedInput is a PreToolUse hook's replacement for the call's
	// arguments, in odek's argument names; nil when none.
	UpdatedInput json.RawMessage
	// Context is what hooks add for the model (additionalContext, or the
	// plain stdout of SessionStart and UserPromptSubmit hooks), cleaned
	// and capped, one hook's text after another.
	Context string
	// Stop: a hook answered "continue": false; the run ends, with
	// StopReason (cleaned; may be "").
	Stop       bool
	StopReason string
	// Untrusted: a project hook wrote some of Reason or Context.
	Untrusted bool
}

// Empty reports a Result that changes nothing.
func (r Result) Empty() bool {
	return !r.Block && !r.Ask && !r.Stop && r.UpdatedInput == nil && r.Context == ""
}

// verdict is hook_completed's decision for one handler: what it asked for
// at this event (block, deny, ask, allow, stop, context), "error" or
// "timeout" when it failed open, "none" when it had no say.
func verdict(e Event, o *outcome) string {
	switch {
	case o.failed() && (o.e.h.Block || o.tampered):
		if e == PreToolUse {
			return "deny"
		}
		if blocks(e) {
			return "block"
		}
		return "error"
	case o.timedOut:
		return "timeout"
	case o.failed():
		return "error"
	case o.exit == 2 && blocks(e):
		if e == PreToolUse {
			return "deny"
		}
		return "block"
	case o.exit == 2:
		return "error"
	case o.isJSON:
		return jsonVerdict(e, &o.ans)
	case takesContext(e) && len(strings.TrimSpace(string(o.stdout))) > 0:
		return "context"
	}
	return "none"
}

func jsonVerdict(e Event, a *answer) string {
	if a.Continue != nil && !*a.Continue {
		return "stop"
	}
	if e == PreToolUse {
		switch pd := permission(a); pd {
		case "deny", "ask", "allow":
			return pd
		}
	} else if a.Decision == "block" && blocks(e) {
		return "block"
	}
	if a.Specific != nil && a.Specific.AdditionalContext != "" {
		return "context"
	}
	return "none"
}

// permission is a PreToolUse answer's decision: hookSpecificOutput's, else
// the older top-level decision ("block" = deny, "approve" = allow).
func permission(a *answer) string {
	if a.Specific != nil && a.Specific.PermissionDecision != "" {
		return a.Specific.PermissionDecision
	}
	switch a.Decision {
	case "block":
		return "deny"
	case "approve":
		return "allow"
	}
	return ""
}

// merge combines the handlers' outcomes, in config order: deny beats ask
// beats allow, every block and every context counts, the first
// updatedInput wins, and what the operator should see is warned.
func (r *Runner) merge(in Input, outs []outcome) Result {
	var res Result
	var reasons, contexts []string
	for i := range outs {
		o := &outs[i]
		r.tell(in, o)
		reason := r.reasonOf(in, o)
		switch o.verdict {
		case "deny", "block":
			res.Block = true
			reasons = append(reasons, reason)
			res.Untrusted = res.Untrusted || o.e.project
		case "ask":
			res.Ask = true
			reasons = append(reasons, reason)
			res.Untrusted = res.Untrusted || o.e.project
		case "stop":
			res.Stop = true
			if res.StopReason == "" {
				res.StopReason = oneLine(o.ans.StopReason, maxReasonBytes)
			}
		}
		if o.failed() || o.exit != 0 {
			continue
		}
		if o.isJSON && o.ans.Specific != nil {
			if c := o.ans.Specific.AdditionalContext; c != "" {
				contexts = append(contexts, clean(c, maxContextBytes))
				res.Untrusted = res.Untrusted || o.e.project
			}
			if u := o.ans.Specific.UpdatedInput; u != nil && in.Event == PreToolUse {
				if res.UpdatedInput == nil {
					res.UpdatedInput = odekInput(in.Tool, claudeInput(in.Tool, in.Args, r.o.Dir), u)
				} else {
					r.o.Warn(fmt.Sprintf("%s: a second updatedInput for the same call is ignored", r.label(in, o)))
				}
			}
		} else if !o.isJSON && takesContext(in.Event) {
			if c := clean(string(o.stdout), maxContextBytes); c != "" {
				contexts = append(contexts, c)
				res.Untrusted = res.Untrusted || o.e.project
			}
		}
	}
	if res.Block {
		res.Ask = false
	}
	if res.Block || res.Ask {
		res.Reason = strings.Join(nonEmpty(reasons), "\n")
	}
	res.Context = strings.Join(contexts, "\n\n")
	return res
}

// reasonOf is why a handler blocked, denied or asked: its JSON reason, or
// its stderr for exit code 2, or what went wrong when it failed closed.
func (r *Runner) reasonOf(in Input, o *outcome) string {
	switch {
	case o.tampered:
		return fmt.Sprintf("%s %s", r.label(in, o), o.err)
	case o.failed():
		return fmt.Sprintf("%s failed and is set to block on error: %s", r.label(in, o), failure(o))
	case o.exit == 2:
		if s := clean(string(o.stderr), maxReasonBytes); s != "" {
			return s
		}
		return r.label(in, o) + " exited with code 2"
	}
	a := &o.ans
	if a.Specific != nil && a.Specific.PermissionDecisionReason != "" {
		return clean(a.Specific.PermissionDecisionReason, maxReasonBytes)
	}
	return clean(a.Reason, maxReasonBytes)
}

// tell warns the operator about a handler: a failure, exit-2 stderr at an
// event that cannot block, a systemMessage.
func (r *Runner) tell(in Input, o *outcome) {
	switch {
	case o.failed():
		r.o.Warn(fmt.Sprintf("%s failed: %s", r.label(in, o), failure(o)))
	case o.exit == 2 && !blocks(in.Event):
		if s := oneLine(string(o.stderr), maxWarnBytes); s != "" {
			r.o.Warn(fmt.Sprintf("%s: %s", r.label(in, o), s))
		}
	}
	if o.isJSON && o.ans.SystemMessage != "" {
		r.o.Warn(fmt.Sprintf("%s: %s", r.label(in, o), oneLine(o.ans.SystemMessage, maxWarnBytes)))
	}
}

// failure says what went wrong with a handler, with its stderr's end.
func failure(o *outcome) string {
	why := fmt.Sprintf("exit code %d", o.exit)
	if o.err != nil {
		why = o.err.Error()
	}
	if tail := oneLine(tailOf(o.stderr, 300), 300); tail != "" {
		why += ": " + tail
	}
	return why
}

// label names a handler for the operator: `PreToolUse hook "Bash" (./guard.sh)`.
func (r *Runner) label(in Input, o *outcome) string {
	origin := ""
	if o.e.project {
		origin = "project "
	}
	m := o.e.group.Matcher
	if m == "" {
		m = "*"
	}
	return fmt.Sprintf("%s%s hook %q (%s)", origin, in.Event, oneLine(m, 60), summary(o.e.h))
}

func tailOf(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

func nonEmpty(list []string) []string {
	out := list[:0:0]
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

package subagent

import (
	"context"

	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// agentType is a task's agent_type for hooks: its profile, else "default".
func agentType(task *wire.Task) string {
	if task.Profile != "" {
		return task.Profile
	}
	return "default"
}

// subagentStart fires SubagentStart; what its hooks add for the model
// joins the task's context, which the child reads as data.
func (t *Tool) subagentStart(ctx context.Context, task *wire.Task) {
	if t.o.Hooks == nil {
		return
	}
	res := t.o.Hooks.Fire(ctx, hooks.Input{Event: hooks.SubagentStart, AgentID: task.TaskID, AgentType: agentType(task)})
	if res.Context == "" {
		return
	}
	if task.Context != "" {
		task.Context += "\n\n"
	}
	task.Context += "[Context from the operator's SubagentStart hooks]\n" + res.Context
}

// subagentStop fires SubagentStop with the child's answer. A hook that
// blocks cannot keep the ended child going: its reason reaches the model
// beside the result, for it to delegate again or do the work itself.
func (t *Tool) subagentStop(ctx context.Context, task *wire.Task, res *wire.Result) {
	if t.o.Hooks == nil {
		return
	}
	out := t.o.Hooks.Fire(ctx, hooks.Input{Event: hooks.SubagentStop, AgentID: task.TaskID, AgentType: agentType(task),
		LastMessage: res.Summary})
	if out.Block {
		reason := out.Reason
		if reason == "" {
			reason = "a SubagentStop hook did not accept this result"
		}
		res.Summary += "\n\n[SubagentStop hook, the operator's: not accepted] " + reason
	}
}

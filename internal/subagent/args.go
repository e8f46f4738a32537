package subagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// TaskSpec is one task of a delegate_tasks call, as the model wrote it.
type TaskSpec struct {
	Goal       string `json:"goal"`
	Context    string `json:"context,omitempty"`
	Guidance   string `json:"guidance,omitempty"`
	TrustLevel string `json:"trust_level,omitempty"`
	MaxRisk    string `json:"max_risk,omitempty"`
	Profile    string `json:"profile,omitempty"`
}

// args are the arguments of delegate_tasks.
type args struct {
	Tasks       []TaskSpec `json:"tasks"`
	Description string     `json:"description,omitempty"`
}

// errorText renders a result-text error of docs/SUBAGENTS.md: {"error":"<msg>"}.
func errorText(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// depthLimitText is the exact refusal at the delegation depth limit.
func depthLimitText(depth, maxDepth int) string {
	return errorText(fmt.Sprintf("delegation depth limit reached (depth %d, max %d); do this work yourself instead of delegating", depth, maxDepth))
}

// parseArgs decodes delegate_tasks arguments. Its error is the result text
// the model sees: {"error":"parse failed: …"}, {"error":"no tasks provided"}
// or {"error":"max 8 tasks per call"}. Unknown fields are ignored (models
// add them), but every known field is checked.
func parseArgs(raw json.RawMessage) (*args, string) {
	var a args
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, errorText("parse failed: " + wire.CleanJSONError(err).Error())
		}
	}
	switch {
	case len(a.Tasks) == 0:
		return nil, errorText("no tasks provided")
	case len(a.Tasks) > maxTasks:
		return nil, errorText(fmt.Sprintf("max %d tasks per call", maxTasks))
	}
	for i := range a.Tasks {
		if err := a.Tasks[i].check(); err != nil {
			return nil, errorText(fmt.Sprintf("parse failed: tasks[%d]: %v", i, err))
		}
	}
	return &a, ""
}

func (t *TaskSpec) check() error {
	t.TrustLevel = strings.TrimSpace(t.TrustLevel)
	t.MaxRisk = strings.TrimSpace(t.MaxRisk)
	t.Profile = strings.TrimSpace(t.Profile)
	tf := wire.Task{Goal: t.Goal, Context: t.Context, Guidance: t.Guidance,
		TrustLevel: t.TrustLevel, MaxRisk: t.MaxRisk, Profile: t.Profile}
	if err := tf.Validate(); err != nil {
		var te *wire.TaskError
		if errors.As(err, &te) {
			return fmt.Errorf("%s %s", te.Field, te.Reason)
		}
		return err
	}
	return nil
}

// schema is the JSON schema of delegate_tasks' arguments.
func schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"tasks":{"type":"array","minItems":1,"maxItems":8,"description":"independent tasks, run in parallel by isolated sub-agents","items":{"type":"object","properties":{` +
		`"goal":{"type":"string","description":"what the sub-agent must achieve, self-contained"},` +
		`"context":{"type":"string","description":"facts the sub-agent needs (it sees nothing else of this conversation)"},` +
		`"guidance":{"type":"string","description":"how to approach it"},` +
		`"trust_level":{"type":"string","enum":["trusted","untrusted"],"description":"untrusted (default) gets no MCP servers and a narrower tool policy"},` +
		`"max_risk":{"type":"string","enum":["safe","local_write","system_write","destructive","code_execution","network_egress","install","blocked"],"description":"highest risk class the sub-agent may use"},` +
		`"profile":{"type":"string","description":"operator-defined policy profile"}` +
		`},"required":["goal"]}},` +
		`"description":{"type":"string","description":"what this batch is for"}` +
		`},"required":["tasks"]}`)
}

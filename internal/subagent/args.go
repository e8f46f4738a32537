package subagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// Args are the arguments of delegate_tasks.
type Args struct {
	Tasks       []TaskSpec `json:"tasks"`
	Description string     `json:"description,omitempty"`
}

// ErrorText renders a result-text error of docs/SUBAGENTS.md: {"error":"<msg>"}.
func ErrorText(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// DepthLimitText is the exact refusal at the delegation depth limit.
func DepthLimitText(depth, maxDepth int) string {
	return ErrorText(fmt.Sprintf("delegation depth limit reached (depth %d, max %d); do this work yourself instead of delegating", depth, maxDepth))
}

// ParseArgs decodes delegate_tasks arguments. Its error is the result text
// the model sees: {"error":"parse failed: …"}, {"error":"no tasks provided"}
// or {"error":"max 8 tasks per call"}. Unknown fields are ignored (models
// add them), but every known field is checked.
func ParseArgs(raw json.RawMessage) (*Args, string) {
	var a Args
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, ErrorText("parse failed: " + cleanJSONError(err).Error())
		}
	}
	switch {
	case len(a.Tasks) == 0:
		return nil, ErrorText("no tasks provided")
	case len(a.Tasks) > MaxTasks:
		return nil, ErrorText(fmt.Sprintf("max %d tasks per call", MaxTasks))
	}
	for i := range a.Tasks {
		if err := a.Tasks[i].check(); err != nil {
			return nil, ErrorText(fmt.Sprintf("parse failed: tasks[%d]: %v", i, err))
		}
	}
	return &a, ""
}

func (t *TaskSpec) check() error {
	t.TrustLevel = strings.TrimSpace(t.TrustLevel)
	t.MaxRisk = strings.TrimSpace(t.MaxRisk)
	t.Profile = strings.TrimSpace(t.Profile)
	tf := Task{Goal: t.Goal, Context: t.Context, Guidance: t.Guidance,
		TrustLevel: t.TrustLevel, MaxRisk: t.MaxRisk, Profile: t.Profile}
	if err := tf.Validate(); err != nil {
		var te *TaskError
		if errors.As(err, &te) {
			return fmt.Errorf("%s %s", te.Field, te.Reason)
		}
		return err
	}
	return nil
}

// Schema is the JSON schema of delegate_tasks' arguments.
func Schema() json.RawMessage {
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

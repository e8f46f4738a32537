package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/untrusted"
)

// Trust levels of a task and of its parent.
const (
	Trusted   = "trusted"
	Untrusted = "untrusted"
)

// riskClasses are the max_risk values a task may name, lowest first.
var riskClasses = []string{
	"safe", "local_write", "system_write", "destructive", "code_execution",
	"network_egress", "install", "blocked",
}

// Size limits of task fields, in bytes. The task file as a whole is capped by
// MaxTaskFileBytes.
const (
	maxGoalBytes     = 64 << 10
	maxGuidanceBytes = 64 << 10
	maxContextBytes  = 1 << 20
	MaxTaskFileBytes = 4 << 20
	// maxOutputSchemaBytes caps the task's output_schema object; it equals
	// outschema.MaxFileBytes, the cap of an --output-schema file (subagent
	// does not import outschema: the child compiles the schema).
	maxOutputSchemaBytes = 1 << 20
)

// Task is the protocol-2 task file the parent writes for one child
// (docs/SUBAGENTS.md). Only Goal is required.
type Task struct {
	TaskID      string  `json:"task_id,omitempty"`
	Protocol    int     `json:"protocol,omitempty"`
	Goal        string  `json:"goal"`
	Context     string  `json:"context,omitempty"`
	Guidance    string  `json:"guidance,omitempty"`
	TrustLevel  string  `json:"trust_level,omitempty"`
	MaxRisk     string  `json:"max_risk,omitempty"`
	Profile     string  `json:"profile,omitempty"`
	Budget      *Budget `json:"budget,omitempty"`
	ParentTrust string  `json:"parent_trust,omitempty"`
	// ArtifactRoot is the per-task directory the child moves its staged
	// artifacts into; the parent validates refs against it.
	ArtifactRoot string `json:"artifact_root,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	BaseURL      string `json:"base_url,omitempty"`
	// ParentRunID is stamped on the child's events (additive).
	ParentRunID string `json:"parent_run_id,omitempty"`
	// ParentSession is echoed in the result as parent_session (additive).
	ParentSession string `json:"parent_session,omitempty"`
	// Events asks the child to forward its odek.event/v1 events as typed
	// stream lines (additive; the parent sets it when it has a sink).
	Events bool `json:"events,omitempty"`
	// OutputSchema is a JSON Schema object the child's final answer must
	// match, as --output-schema would give it (additive, optional;
	// delegate_tasks never sets it). The child compiles it.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`

	// Narrowing (additive, issue 18 and 26; see narrow.go): the parent's
	// effective tool set (absent = no narrowing, [] = no tools), its risk
	// policy, and its resolved LLM settings.
	ParentTools  *[]string         `json:"parent_tools,omitempty"`
	ParentPolicy *Policy           `json:"parent_policy,omitempty"`
	LLM          map[string]string `json:"llm,omitempty"`
	// Sandbox is the parent's sandbox, the widest the child may use
	// (sandboxfield.go).
	Sandbox *TaskSandbox `json:"sandbox,omitempty"`
	// NoAgents tells the child to read no AGENTS.md (additive; the parent
	// sets it when it read none, by no_agents). Absent, the child reads
	// them as a run would.
	NoAgents bool `json:"no_agents,omitempty"`
}

// Budget is the budget block: the child's reserved share of the parent's
// remaining limits and explicit exhaustion flags, because a remaining 0 on
// the wire would read as "no limit". Absent fields are unconfigured. With a
// cost share come the prices the parent priced it with.
type Budget struct {
	MaxRuntimeSeconds     int64   `json:"max_runtime_seconds,omitempty"`
	MaxToolCalls          int64   `json:"max_tool_calls,omitempty"`
	MaxCostUSD            float64 `json:"max_cost_usd,omitempty"`
	MaxInputTokens        int64   `json:"max_input_tokens,omitempty"`
	MaxOutputTokens       int64   `json:"max_output_tokens,omitempty"`
	RuntimeExhausted      bool    `json:"runtime_exhausted,omitempty"`
	ToolCallsExhausted    bool    `json:"tool_calls_exhausted,omitempty"`
	CostExhausted         bool    `json:"cost_exhausted,omitempty"`
	InputTokensExhausted  bool    `json:"input_tokens_exhausted,omitempty"`
	OutputTokensExhausted bool    `json:"output_tokens_exhausted,omitempty"`
	// InputCostPerMillionUSD and OutputCostPerMillionUSD are the parent's
	// resolved prices (additive, with max_cost_usd).
	InputCostPerMillionUSD  float64 `json:"input_cost_per_million_usd,omitempty"`
	OutputCostPerMillionUSD float64 `json:"output_cost_per_million_usd,omitempty"`
}

// ParseTask decodes and validates a task file. Duplicate keys, a value of
// the wrong type, trailing data, a wrong protocol, an unknown enum value, an
// oversized field, a NUL byte or invalid UTF-8 all fail with an error naming
// the field; unknown fields (and llm keys) are ignored (DECISION 29).
func ParseTask(data []byte) (*Task, error) {
	if len(data) > MaxTaskFileBytes {
		return nil, &TaskError{Reason: fmt.Sprintf("%d bytes exceed the limit of %d", len(data), MaxTaskFileBytes)}
	}
	if !utf8.Valid(data) {
		return nil, &TaskError{Reason: "not valid UTF-8"} // encoding/json would hide it behind U+FFFD
	}
	var t Task
	if err := decodeStrict(data, &t); err != nil {
		return nil, &TaskError{Reason: err.Error()}
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Validate checks every field of t.
func (t *Task) Validate() error {
	checks := []func() error{
		func() error { return checkProtocol(t.Protocol) },
		func() error { return checkText("goal", t.Goal, maxGoalBytes, true) },
		func() error { return checkText("context", t.Context, maxContextBytes, false) },
		func() error { return checkText("guidance", t.Guidance, maxGuidanceBytes, false) },
		func() error { return checkEnum("trust_level", t.TrustLevel, []string{Trusted, Untrusted}) },
		func() error { return checkEnum("parent_trust", t.ParentTrust, []string{Trusted, Untrusted}) },
		func() error { return checkEnum("max_risk", t.MaxRisk, riskClasses) },
		func() error { return checkTaskID(t.TaskID) },
		func() error { return checkName("profile", t.Profile) },
		func() error { return checkName("parent_session", t.ParentSession) },
		func() error { return checkRoot(t.ArtifactRoot) },
		// provider is base_url less its userinfo, query and fragment: the
		// same cap, or a long base_url would make the child refuse the file.
		func() error { return checkText("provider", t.Provider, 2048, false) },
		func() error { return checkText("model", t.Model, 256, false) },
		func() error { return checkText("base_url", t.BaseURL, 2048, false) },
		func() error { return checkRunID(t.ParentRunID) },
		func() error { return t.Budget.validate() },
		func() error { return checkSchemaObject(t.OutputSchema) },
		func() error { return checkParentTools(t.ParentTools) },
		func() error { return t.ParentPolicy.validate() },
		func() error { return checkLLM(t.LLM) },
		func() error { return t.Sandbox.validate() },
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// EffectiveProtocol is 1 for a task file that names none.
func (t *Task) EffectiveProtocol() int {
	if t.Protocol == 0 {
		return 1
	}
	return t.Protocol
}

// Trust is the child's trust: the lower of the parent's and the task's. An
// omitted task trust is untrusted; an omitted parent trust is trusted.
func (t *Task) Trust() string { return minTrust(t.ParentTrust, t.TrustLevel) }

// minTrust returns untrusted unless the parent is trusted (or unset) and the
// task asks for trusted.
func minTrust(parent, task string) string {
	if (parent == "" || parent == Trusted) && task == Trusted {
		return Trusted
	}
	return Untrusted
}

// Encode renders t as the JSON the child reads.
func (t *Task) Encode() ([]byte, error) {
	return json.Marshal(t)
}

func checkProtocol(p int) error {
	if p != 0 && p != 1 && p != Protocol {
		return taskErr("protocol", "unsupported protocol %d (want 1 or %d)", p, Protocol)
	}
	return nil
}

// checkText bounds a string field and refuses NUL bytes and invalid UTF-8.
func checkText(field, s string, max int, required bool) error {
	switch {
	case required && strings.TrimSpace(s) == "":
		return taskErr(field, "is required")
	case len(s) > max:
		return taskErr(field, "is %d bytes, exceeding the limit of %d", len(s), max)
	case !utf8.ValidString(s):
		return taskErr(field, "is not valid UTF-8")
	case strings.IndexByte(s, 0) >= 0:
		return taskErr(field, "contains a NUL byte")
	}
	return nil
}

func checkEnum(field, v string, allowed []string) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return taskErr(field, "%q is not one of %s", untrusted.OneLine(v, 64), strings.Join(allowed, ", "))
}

// checkTaskID requires the form NewTaskID produces: the id becomes a path
// element.
func checkTaskID(id string) error {
	if id != "" && !IsTaskID(id) {
		return taskErr("task_id", "%q is not of the form task-<16 lowercase hex>", untrusted.OneLine(id, 64))
	}
	return nil
}

// checkName accepts ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ (profile and session
// names).
func checkName(field, v string) error {
	if v != "" && !IsName(v) {
		return taskErr(field, "%q must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", untrusted.OneLine(v, 64))
	}
	return nil
}

func checkRoot(root string) error {
	switch {
	case root == "":
		return nil
	case strings.IndexByte(root, 0) >= 0 || !utf8.ValidString(root):
		return taskErr("artifact_root", "is not a valid path")
	case !filepath.IsAbs(root) || filepath.Clean(root) != root:
		return taskErr("artifact_root", "must be an absolute, clean path")
	}
	return nil
}

// checkSchemaObject accepts an absent output_schema or a JSON object of at
// most maxOutputSchemaBytes; compiling it is the child's job.
func checkSchemaObject(raw json.RawMessage) error {
	switch {
	case raw == nil:
		return nil
	case len(raw) > maxOutputSchemaBytes:
		return taskErr("output_schema", "is %d bytes, exceeding the limit of %d", len(raw), maxOutputSchemaBytes)
	case len(bytes.TrimLeft(raw, " \t\r\n")) == 0 || bytes.TrimLeft(raw, " \t\r\n")[0] != '{':
		return taskErr("output_schema", "must be a JSON object (a JSON Schema)")
	}
	return nil
}

func checkRunID(id string) error {
	if id != "" && !isLowerHex(id, 32) {
		return taskErr("parent_run_id", "must be 32 lowercase hex digits")
	}
	return nil
}

func (b *Budget) validate() error {
	if b == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"max_runtime_seconds", b.MaxRuntimeSeconds}, {"max_tool_calls", b.MaxToolCalls},
		{"max_input_tokens", b.MaxInputTokens}, {"max_output_tokens", b.MaxOutputTokens},
	} {
		if f.v < 0 {
			return taskErr("budget."+f.name, "must not be negative, got %d", f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"max_cost_usd", b.MaxCostUSD}, {"input_cost_per_million_usd", b.InputCostPerMillionUSD},
		{"output_cost_per_million_usd", b.OutputCostPerMillionUSD},
	} {
		if c := f.v; c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
			return taskErr("budget."+f.name, "must be a non-negative number, got %v", c)
		}
	}
	return nil
}

// IsName reports whether s is a profile, session or artifact name:
// ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$.
func IsName(s string) bool {
	if s == "" || len(s) > 128 || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

package wire

import (
	"maps"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// Narrowing: what the parent's run may do travels in the task file, so a
// child never does more (issue 18). parent_tools is the parent's effective
// tool set (--tool, --no-tool, tools.*, ODEK_TOOLS_*, profiles: whatever
// the parent offered its model); parent_policy is its effective risk
// policy (the dangerous settings, -c included). The child offers only tools
// in both its own set and parent_tools, and every call must pass both its
// own policy and the parent's. llm carries the parent's resolved LLM
// settings (issue 26), which the child applies like flags.

// Caps of the narrowing fields.
const (
	maxParentTools  = 1024
	maxToolName     = 256
	maxPolicyList   = 1024
	maxPolicyEntry  = 4096
	maxPolicyClass  = 64
	maxLLMValueByte = 256
)

// Policy is the parent's effective risk policy: a decision (allow, prompt,
// deny) per risk class and its exact-invocation lists. A child treats the
// parent's "prompt" as its own (it never asks: denied unless its own
// allowlist names the call) and the parent's "deny" and denylist as final.
type Policy struct {
	Classes   map[string]string `json:"classes,omitempty"`
	Allowlist []string          `json:"allowlist,omitempty"`
	Denylist  []string          `json:"denylist,omitempty"`
}

// LLMSettingKeys are the settings a task file's llm object may carry: the
// parent's resolved values, which the child takes as flags. Keys are the
// config's (docs/CONFIG.md); values are as a flag or -c would give them.
var LLMSettingKeys = []string{
	"stream", "thinking", "reasoning_effort", "thinking_budget", "prompt_caching",
	"llm.connect_timeout_seconds", "llm.first_byte_timeout_seconds",
	"llm.idle_timeout_seconds", "llm.request_timeout_seconds", "llm.response_format", "llm.wire_api",
	"context_window", "compaction", "llm.fallback_models",
}

// Decisions are the values a class may have in parent_policy.
var Decisions = []string{"allow", "prompt", "deny"}

func checkParentTools(tools *[]string) error {
	if tools == nil {
		return nil
	}
	if len(*tools) > maxParentTools {
		return taskErr("parent_tools", "has %d names, exceeding the limit of %d", len(*tools), maxParentTools)
	}
	for _, n := range *tools {
		if err := checkText("parent_tools", n, maxToolName, true); err != nil {
			return err
		}
	}
	return nil
}

func (p *Policy) validate() error {
	if p == nil {
		return nil
	}
	if len(p.Classes) > maxPolicyClass {
		return taskErr("parent_policy.classes", "has %d classes, exceeding the limit of %d", len(p.Classes), maxPolicyClass)
	}
	for _, class := range slices.Sorted(maps.Keys(p.Classes)) {
		d := p.Classes[class]
		if !isClassName(class) {
			return taskErr("parent_policy.classes", "%q is not a risk class name", untrusted.OneLine(class, 64))
		}
		if !slices.Contains(Decisions, d) {
			return taskErr("parent_policy.classes."+class, "%q is not one of %s", untrusted.OneLine(d, 64), strings.Join(Decisions, ", "))
		}
	}
	for _, l := range []struct {
		name string
		v    []string
	}{{"parent_policy.allowlist", p.Allowlist}, {"parent_policy.denylist", p.Denylist}} {
		if len(l.v) > maxPolicyList {
			return taskErr(l.name, "has %d entries, exceeding the limit of %d", len(l.v), maxPolicyList)
		}
		for _, e := range l.v {
			if err := checkText(l.name, e, maxPolicyEntry, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// isClassName reports ^[a-z][a-z_]{0,31}$.
func isClassName(s string) bool {
	if s == "" || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// checkLLM bounds the values of the settings the child takes. A key outside
// LLMSettingKeys is a setting this child does not know: ignored, like any
// unknown field (DECISION 29), and never read.
func checkLLM(m map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if !slices.Contains(LLMSettingKeys, k) {
			continue
		}
		if err := checkText("llm."+k, v, maxLLMValueByte, false); err != nil {
			return err
		}
	}
	return nil
}

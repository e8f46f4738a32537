package config

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// set builds a lookup set of key names.
func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// topLevelKeys are all keys accepted silently at the top level: those odek
// decodes plus upstream keys outside odek's scope, which are not typos.
var topLevelKeys = set(
	"model", "base_url", "api_key", "system", "thinking", "interaction_mode",
	"max_iterations", "max_tool_parallel", "max_concurrency", "stream", "no_color",
	"compaction", "tools", "limits", "mcp_servers", "maintenance", "planning",
	"subagent", "profiles",
	// upstream, out of odek's scope
	"no_agents", "prompt_caching", "dangerous", "embedding", "memory", "sessions",
	"skills", "web_search", "telegram", "guard", "trusted_proxies", "schedules",
	"sandbox", "sandbox_readonly", "$schema",
)

// nestedKeys lists the fields of each object odek decodes itself.
var nestedKeys = map[string]map[string]bool{
	"tools": set("enabled", "disabled"),
	"limits": set("max_runtime_seconds", "max_tool_calls", "max_input_tokens",
		"max_output_tokens", "max_cost_usd", "input_cost_per_million_usd",
		"output_cost_per_million_usd", "model_prices"),
	"maintenance": set("artifacts_max_age_hours"),
	"planning":    set("enabled", "max_steps", "max_render_chars"),
}

var priceKeys = set("input_cost_per_million_usd", "output_cost_per_million_usd")

// serverKeys are the mcp_servers.<name> fields; "type" is the Claude-format
// transport hint, redundant with command/url.
var serverKeys = set("command", "args", "env", "url", "token_env", "timeout_seconds",
	"max_response_bytes", "max_result_chars", "artifact_roots", "enabled", "auto_approve", "type")

// isComment reports a "//"-prefixed key, the comment convention of Template.
func isComment(key string) bool { return strings.HasPrefix(key, "//") }

// unknownKeyWarnings lists keys of f odek does not know, sorted.
func unknownKeyWarnings(f *loadedFile) []string {
	var unknown []string
	for k, raw := range f.top {
		switch {
		case isComment(k):
		case !topLevelKeys[k]:
			unknown = append(unknown, k)
		case nestedKeys[k] != nil:
			unknown = appendUnknown(unknown, k+".", raw, nestedKeys[k])
			if k == "limits" {
				unknown = appendNamedUnknown(unknown, "limits.model_prices.", field(raw, "model_prices"), priceKeys)
			}
		case k == "mcp_servers":
			unknown = appendNamedUnknown(unknown, "mcp_servers.", raw, serverKeys)
		}
	}
	sort.Strings(unknown)
	w := make([]string, len(unknown))
	for i, k := range unknown {
		w[i] = fmt.Sprintf("unknown key %q in %s", k, f.path)
	}
	return w
}

// appendUnknown appends prefix+key for each unknown key of the object raw.
func appendUnknown(dst []string, prefix string, raw json.RawMessage, known map[string]bool) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return dst
	}
	for k := range obj {
		if !known[k] && !isComment(k) {
			dst = append(dst, prefix+k)
		}
	}
	return dst
}

// appendNamedUnknown checks every entry of a name → object map.
func appendNamedUnknown(dst []string, prefix string, raw json.RawMessage, known map[string]bool) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return dst
	}
	for name, entry := range obj {
		dst = appendUnknown(dst, prefix+name+".", entry, known)
	}
	return dst
}

// field returns one member of a JSON object, or nil.
func field(raw json.RawMessage, key string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj[key]
}

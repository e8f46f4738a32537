package events

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxSummaryString caps every string in an args_summary.
const maxSummaryString = 512

// maxArgv0s caps the argv0 list of parallel_shell.
const maxArgv0s = 16

// maxKeys caps the key list of an MCP call, keeping the summary small.
const maxKeys = 64

// ArgsSHA256 is the hex SHA-256 of the raw argument bytes (args_sha256).
func ArgsSHA256(args []byte) string {
	sum := sha256.Sum256(args)
	return hex.EncodeToString(sum[:])
}

// ArgsSummary is the low-cardinality args_summary of one call, or nil when the
// tool is not recognised or its arguments are not a JSON object. It never
// copies argument values except the few fields below:
//
//   - MCP tools (<server>__<tool>): {"keys": sorted top-level argument keys}.
//     MCP arguments are arbitrary, so no value is ever copied.
//   - shell: {"argv0"}: basename of the first word of "command", leading
//     VAR=value assignments skipped. parallel_shell: {"argv0": [≤16]}.
//   - read/write path tools: {"path"}; batch_patch: {"path": [...]}.
//   - delegate_tasks: {"task_count"}; plan: {"action"}.
//   - any other tool with a "url" argument: {"host"} only (URLs carry tokens).
//
// The risk class of shell and path calls lives outside this leaf package:
// callers that have a classifier add it as summary["class"].
func ArgsSummary(tool string, args []byte) map[string]any {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return nil
	}
	if strings.Contains(tool, "__") {
		return map[string]any{"keys": sortedKeys(obj)}
	}
	switch tool {
	case "shell":
		return single("argv0", argv0(str(obj["command"])))
	case "parallel_shell":
		return parallelShell(obj)
	case "read_file", "write_file", "patch", "edit_file", "list_files", "list_directory",
		"search_files", "glob", "read_text_file":
		return single("path", clip(str(obj["path"])))
	case "batch_patch":
		return batchPatch(obj)
	case "delegate_tasks":
		var tasks []json.RawMessage
		_ = json.Unmarshal(obj["tasks"], &tasks)
		return map[string]any{"task_count": len(tasks)}
	case "plan":
		return single("action", clip(str(obj["action"])))
	}
	if u, ok := obj["url"]; ok {
		return map[string]any{"host": clip(host(str(u)))}
	}
	return nil
}

func single(k, v string) map[string]any { return map[string]any{k: v} }

func sortedKeys(obj map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, clip(k))
	}
	slices.Sort(keys)
	return keys[:min(len(keys), maxKeys)]
}

// str decodes a JSON string; anything else is "".
func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// argv0 is the program a shell command runs: the first word that is not a
// NAME=value assignment, as a basename.
func argv0(cmd string) string {
	for _, w := range strings.Fields(cmd) {
		if isAssignment(w) {
			continue
		}
		return clip(path.Base(strings.Trim(w, `"'`)))
	}
	return ""
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func parallelShell(obj map[string]json.RawMessage) map[string]any {
	var cmds []json.RawMessage
	_ = json.Unmarshal(obj["commands"], &cmds)
	names := []string{}
	for _, c := range cmds[:min(len(cmds), maxArgv0s)] {
		s := str(c)
		if s == "" { // {"command": "..."} objects
			var o map[string]json.RawMessage
			_ = json.Unmarshal(c, &o)
			s = str(o["command"])
		}
		names = append(names, argv0(s))
	}
	return map[string]any{"argv0": names}
}

func batchPatch(obj map[string]json.RawMessage) map[string]any {
	var patches []map[string]json.RawMessage
	_ = json.Unmarshal(obj["patches"], &patches)
	paths := []string{}
	for _, p := range patches {
		paths = append(paths, clip(str(p["path"])))
	}
	return map[string]any{"path": paths}
}

// host is the URL's host without userinfo, port kept; "" when unparsable.
func host(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return ""
	}
	return u.Host
}

// clip cuts s to maxSummaryString bytes on a rune boundary.
func clip(s string) string {
	if len(s) <= maxSummaryString {
		return s
	}
	s = s[:maxSummaryString]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

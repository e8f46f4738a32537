package hooks

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
)

// alias is a Claude Code tool name for one of odek's, and how its
// arguments are named there.
type alias struct {
	names []string // Claude Code's names, the first is claude_tool_name
	// fields maps odek's argument names to Claude Code's for the tool's
	// input: hooks see both, and an updatedInput may use either.
	fields map[string]string
	// absPath: Claude Code's file_path is absolute; odek's path is relative
	// to the working directory.
	absPath bool
}

// aliases is the documented map of docs/HOOKS.md: a matcher written for
// Claude Code ("Bash", "Write|Edit", "mcp__github__.*") matches odek's tools.
var aliases = map[string]alias{
	"shell":             {names: []string{"Bash"}},
	"write_file":        {names: []string{"Write"}, fields: map[string]string{"path": "file_path"}, absPath: true},
	"patch":             {names: []string{"Edit"}, fields: map[string]string{"path": "file_path", "old": "old_string", "new": "new_string"}, absPath: true},
	"read_file":         {names: []string{"Read"}, fields: map[string]string{"path": "file_path"}, absPath: true},
	"list_dir":          {names: []string{"LS"}},
	"glob":              {names: []string{"Glob"}},
	"search_files":      {names: []string{"Grep"}},
	"plan":              {names: []string{"TodoWrite"}},
	"delegate_tasks":    {names: []string{"Task", "Agent"}},
	"mcp_resource_read": {names: []string{"ReadMcpResourceTool"}},
}

// toolNames are the names a tool matches by: odek's, then Claude Code's
// (an MCP tool "server__tool" is "mcp__server__tool" there).
func toolNames(tool string) []string {
	if a, ok := aliases[tool]; ok {
		return append([]string{tool}, a.names...)
	}
	if strings.Contains(tool, "__") {
		return []string{tool, "mcp__" + tool}
	}
	return []string{tool}
}

// claudeName is the tool's first Claude Code name ("" for none).
func claudeName(tool string) string {
	names := toolNames(tool)
	if len(names) < 2 {
		return ""
	}
	return names[1]
}

// claudeInput adds Claude Code's argument names to a built-in tool's input
// (file_path as an absolute path below dir), so that a hook written for
// Claude Code finds what it reads. Other input is passed as it is.
func claudeInput(tool string, args json.RawMessage, dir string) json.RawMessage {
	a, ok := aliases[tool]
	if !ok || len(a.fields) == 0 {
		return args
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || m == nil {
		return args
	}
	for odek, claude := range a.fields {
		v, ok := m[odek]
		if !ok {
			continue
		}
		if s, isStr := v.(string); isStr && a.absPath && odek == "path" && !filepath.IsAbs(s) && dir != "" {
			v = filepath.Join(dir, s)
		}
		m[claude] = v
	}
	out, err := marshal(m)
	if err != nil {
		return args
	}
	return out
}

// odekInput turns a hook's updatedInput back into odek's argument names:
// a Claude Code name given with a value other than the one the hook was
// shown wins over odek's name, and the Claude Code names are removed.
func odekInput(tool string, shown, updated json.RawMessage) json.RawMessage {
	a, ok := aliases[tool]
	if !ok || len(a.fields) == 0 {
		return updated
	}
	var u, s map[string]any
	if json.Unmarshal(updated, &u) != nil || u == nil {
		return updated
	}
	_ = json.Unmarshal(shown, &s)
	for odek, claude := range a.fields {
		v, ok := u[claude]
		if !ok {
			continue
		}
		delete(u, claude)
		if was, shownToo := s[claude]; shownToo && jsonEqual(was, v) {
			continue // unchanged: odek's own name holds the value
		}
		u[odek] = v
	}
	out, err := marshal(u)
	if err != nil {
		return updated
	}
	return out
}

// marshal encodes v as Claude Code does: "<", ">" and "&" as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

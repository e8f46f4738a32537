package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/untrusted"
)

// kinds is the ACP kind of each of odek's own tools; an MCP tool (any other
// name) is "other": odek cannot tell what a server's tool does.
var kinds = map[string]sdk.ToolKind{
	"read_file":         sdk.ToolKindRead,
	"artifact_read":     sdk.ToolKindRead,
	"list_dir":          sdk.ToolKindSearch,
	"glob":              sdk.ToolKindSearch,
	"search_files":      sdk.ToolKindSearch,
	"write_file":        sdk.ToolKindEdit,
	"patch":             sdk.ToolKindEdit,
	"shell":             sdk.ToolKindExecute,
	"mcp_resource_read": sdk.ToolKindFetch,
	plan.ToolName:       sdk.ToolKindThink,
	"delegate_tasks":    sdk.ToolKindOther,
}

// Caps on what a tool call's update carries.
const (
	titleRunes   = 120
	contentRunes = 8000 // a result's text, as the client shows it
	diffBytes    = 1 << 20
)

// callArgs are the argument fields odek's tools share that an update shows.
type callArgs struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
	Command string `json:"command"`
	Content string `json:"content"`
	Old     string `json:"old"`
	New     string `json:"new"`
}

// callView is what a tool call shows the client: title, kind, the files
// it works on, and the diff of an edit.
type callView struct {
	title     string
	kind      sdk.ToolKind
	locations []sdk.ToolCallLocation
	diff      []sdk.ToolCallContent
	raw       any
}

// viewCall describes a call from its tool name and raw arguments; paths
// are made absolute against cwd.
func viewCall(cwd, tool, args string) callView {
	kind, ok := kinds[tool]
	if !ok {
		kind = sdk.ToolKindOther
	}
	v := callView{kind: kind, title: untrusted.OneLine(tool, titleRunes)}
	var a callArgs
	if json.Unmarshal([]byte(args), &a) != nil {
		return v
	}
	var raw any
	if json.Unmarshal([]byte(args), &raw) == nil {
		v.raw = raw
	}
	if _, builtin := kinds[tool]; !builtin {
		return v // a server's tool: its fields mean what the server says
	}
	switch {
	case a.Command != "":
		v.title = untrusted.OneLine(a.Command, titleRunes)
	case a.Pattern != "":
		v.title = untrusted.OneLine(tool+" "+a.Pattern, titleRunes)
	case a.Path != "":
		v.title = untrusted.OneLine(tool+" "+a.Path, titleRunes)
	}
	if a.Path != "" {
		p := absPath(cwd, a.Path)
		v.locations = []sdk.ToolCallLocation{{Path: p}}
		v.diff = diffOf(tool, p, a)
	}
	return v
}

// diffOf is an edit's diff: write_file's whole new content (the old one is
// not read: the call has not run), patch's replaced text.
func diffOf(tool, path string, a callArgs) []sdk.ToolCallContent {
	switch {
	case tool == "write_file" && len(a.Content) <= diffBytes:
		return []sdk.ToolCallContent{sdk.ToolDiffContent(path, a.Content)}
	case tool == "patch" && a.Old != "" && len(a.Old)+len(a.New) <= diffBytes:
		return []sdk.ToolCallContent{sdk.ToolDiffContent(path, a.New, a.Old)}
	}
	return nil
}

func absPath(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// textContent is a tool result's text as an update's content, cut.
func textContent(s string) []sdk.ToolCallContent {
	if r := []rune(s); len(r) > contentRunes {
		s = string(r[:contentRunes]) + "\n[… cut by odek]"
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(s))}
}

// unframe takes the loop's TOOL RESULT frame off a result (its first and
// last lines): the client shows the result, not odek's framing for the model.
func unframe(s string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || !strings.HasPrefix(first, "┌── TOOL RESULT: ") {
		return s
	}
	i := strings.LastIndex(rest, "\n")
	if i < 0 || !strings.HasPrefix(rest[i+1:], "└── END TOOL RESULT: ") {
		return s
	}
	return rest[:i]
}

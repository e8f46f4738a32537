package mcpclient

import (
	"encoding/json"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/untrusted"
)

// AssessRisk puts a call in the risk policy's terms from the server's
// behaviour hints, so that dangerous.classes and dangerous.non_interactive
// apply to MCP tools too. Hints can only make odek stricter than the
// approval the tool got when it was registered, which allowed every call:
//
//   - readOnlyHint: true from a server the operator defined → safe, and an
//     inspection (it runs under non_interactive "read_only");
//   - anything else → local_write: allowed by default, but prompted or
//     denied where the operator made local_write stricter, and refused under
//     non_interactive "read_only". A project server's read-only claim is
//     not believed: a repository must not talk its tools into read-only mode.
//
// destructiveHint, idempotentHint and openWorldHint are shown by odek tools
// but decide nothing: odek's destructive class means wholesale destruction
// (denied by default), which MCP's "may overwrite" hint does not (the
// reference filesystem server's write_file sets it).
func (a *ToolAdapter) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	what := a.Name() + " " + untrusted.OneLine(string(args), 200)
	ro := a.Annotations != nil && a.Annotations.ReadOnlyHint != nil && *a.Annotations.ReadOnlyHint
	switch {
	case ro && !a.Project:
		return risk.Assessment{Class: risk.Safe, Set: risk.Of(risk.Safe), What: what, Inspect: true,
			Reason: "the MCP server marks this tool read-only"}, nil
	case ro:
		return risk.Assessment{Class: risk.LocalWrite, Set: risk.Of(risk.LocalWrite), What: what,
			Reason: "a project server's read-only hint is not trusted; the MCP tool may change things"}, nil
	}
	return risk.Assessment{Class: risk.LocalWrite, Set: risk.Of(risk.LocalWrite), What: what,
		Reason: "the MCP tool is not marked read-only, so it may change things"}, nil
}

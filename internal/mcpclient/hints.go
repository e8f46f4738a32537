package mcpclient

import (
	"encoding/json"
	"strings"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/untrusted"
)

// AssessRisk puts a call in the risk policy's terms, so that
// dangerous.classes and dangerous.non_interactive apply to MCP tools too.
// Every call is local_write (allowed by default, prompted or denied where
// the operator made local_write stricter, refused under non_interactive
// "read_only"), unless the operator trusts the server's hints
// (mcp_servers.<s>.trust_annotations, operator config only) and the server
// marks the tool readOnlyHint: then it is safe, an inspection. A hint
// alone relaxes nothing: a server could mark a write tool read-only, or
// flip the hint after its tools were approved (the approval key covers
// the hints, so a flip asks again, but auto_approve does not ask).
//
// destructiveHint, idempotentHint and openWorldHint are shown by odek tools
// but decide nothing: odek's destructive class means wholesale destruction
// (denied by default), which MCP's "may overwrite" hint does not (the
// reference filesystem server's write_file sets it).
func (a *ToolAdapter) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	what := a.Name() + " " + untrusted.OneLine(string(args), 200)
	local := func(reason string) (risk.Assessment, error) {
		return risk.Assessment{Class: risk.LocalWrite, Set: risk.Of(risk.LocalWrite), What: what, Reason: reason}, nil
	}
	ro := a.Annotations != nil && a.Annotations.ReadOnlyHint != nil && *a.Annotations.ReadOnlyHint
	switch {
	case !ro:
		return local("the MCP tool is not marked read-only, so it may change things")
	case a.Project:
		return local("a project server's read-only hint is not trusted; the MCP tool may change things")
	case !a.TrustHints:
		return local("the server marks this tool read-only, but its hints are not trusted (set mcp_servers." +
			a.Client.Name() + ".trust_annotations to trust them); the MCP tool may change things")
	}
	return risk.Assessment{Class: risk.Safe, Set: risk.Of(risk.Safe), What: what, Inspect: true,
		Reason: "the MCP server marks this tool read-only, and its hints are trusted (trust_annotations)"}, nil
}

// Labels names the hints a server sent, for people: "read-only",
// "destructive" or "non-destructive", "idempotent", "open-world" or
// "closed-world"; a hint not sent (or read-only/idempotent false) adds
// nothing. Nil for no annotations.
func (a *ToolAnnotations) Labels() []string {
	if a == nil {
		return nil
	}
	var out []string
	flag := func(p *bool, yes, no string) {
		switch {
		case p != nil && *p && yes != "":
			out = append(out, yes)
		case p != nil && !*p && no != "":
			out = append(out, no)
		}
	}
	flag(a.ReadOnlyHint, "read-only", "")
	flag(a.DestructiveHint, "destructive", "non-destructive")
	flag(a.IdempotentHint, "idempotent", "")
	flag(a.OpenWorldHint, "open-world", "closed-world")
	return out
}

// LabelList is Labels joined by ", "; "" for none.
func (a *ToolAnnotations) LabelList() string { return strings.Join(a.Labels(), ", ") }

package runview

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/untrusted"
)

// WriteToolsText lists one tool a line, name then the description's first
// line; on a terminal each line is cut to its width. long shows every line
// of each description, indented under its name, uncut.
func WriteToolsText(ios *iostreams.IOStreams, listing []ListedTool, long bool) error {
	nameWidth := 0
	for _, t := range listing {
		nameWidth = max(nameWidth, len([]rune(untrusted.TerminalLine(t.Name))))
	}
	width := 0
	if ios.StdoutTTY && ios.OutWidth != nil && !long {
		width = ios.OutWidth()
	}
	var b strings.Builder
	for _, t := range listing {
		name := untrusted.TerminalLine(t.Name)
		pad := strings.Repeat(" ", nameWidth-len([]rune(name))+2)
		if !long {
			b.WriteString(cutToWidth(name+pad+untrusted.TerminalLine(hintPrefix(t.Annotations)+firstLine(t.Description)), width) + "\n")
			continue
		}
		lines := strings.Split(strings.TrimRight(t.Description, "\n"), "\n")
		b.WriteString(name + pad + untrusted.TerminalLine(hintPrefix(t.Annotations)+lines[0]) + "\n")
		for _, l := range lines[1:] {
			b.WriteString(strings.Repeat(" ", nameWidth+2) + untrusted.TerminalLine(l) + "\n")
		}
	}
	_, err := io.WriteString(ios.Out, b.String())
	return err
}

// cutToWidth keeps a line within width columns (0 = no limit), ending a
// cut one with "…"; the last column stays free so the terminal does not
// wrap.
func cutToWidth(s string, width int) string {
	r := []rune(strings.TrimRight(s, " "))
	if width < 8 || len(r) < width {
		return string(r)
	}
	return string(r[:width-2]) + "…"
}

// ListedTool is one entry of odek tools (docs/schema/tools.schema.json).
type ListedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// MCP tools only: the server, the era and protocol version it speaks,
	// the tool's output schema and its behaviour hints.
	Server          string                     `json:"server,omitempty"`
	Era             string                     `json:"era,omitempty"`
	ProtocolVersion string                     `json:"protocol_version,omitempty"`
	OutputSchema    json.RawMessage            `json:"output_schema,omitempty"`
	Annotations     *mcpclient.ToolAnnotations `json:"annotations,omitempty"`
	// OutputSchemaError says why odek refuses the output schema (every
	// call of the tool would fail); the listing then exits 3.
	OutputSchemaError string `json:"output_schema_error,omitempty"`
}

// hintPrefix shows an MCP tool's behaviour hints in the text listing.
func hintPrefix(a *mcpclient.ToolAnnotations) string {
	if hints := a.LabelList(); hints != "" {
		return "[" + hints + "] "
	}
	return ""
}

// listedDescriber is a tool whose description for a listing differs from
// the model's (MCP tools: without the untrusted-content fence and its
// per-run nonce).
type listedDescriber interface{ ListedDescription() string }

// Listing is the registry's tools sorted by name, each with its listed
// description: the same configuration lists the same bytes every run.
func Listing(reg *loop.Registry) []ListedTool {
	specs := reg.Specs()
	out := make([]ListedTool, len(specs))
	for i, sp := range specs {
		out[i] = ListedTool{Name: sp.Name, Description: sp.Description, InputSchema: sp.Parameters}
		if t, ok := reg.Lookup(sp.Name); ok {
			if ld, ok := t.(listedDescriber); ok {
				out[i].Description = ld.ListedDescription()
			}
			if a, ok := t.(*mcpclient.ToolAdapter); ok {
				out[i].Server, out[i].Era, out[i].ProtocolVersion = a.Client.Name(), string(a.Client.Era()), a.Client.ProtocolVersion()
				out[i].OutputSchema, out[i].Annotations = a.OutputSchema, a.Annotations
			}
		}
	}
	slices.SortFunc(out, func(a, b ListedTool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// WriteToolsJSON prints the listing as an indented JSON array
// (docs/schema/tools.schema.json).
func WriteToolsJSON(ios *iostreams.IOStreams, listing []ListedTool) error {
	b, err := json.MarshalIndent(listing, "", "  ")
	if err != nil {
		return err
	}
	text := string(b) + "\n"
	if ios.StdoutTTY {
		// encoding/json leaves DEL, C1 and bidi controls raw; their
		// \uXXXX forms are valid JSON escapes of the same strings.
		text = untrusted.Terminal(text)
	}
	_, err = io.WriteString(ios.Out, text)
	return err
}

// firstLine is the first line of a description, for the text listing.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// CheckOutputSchemas compiles every listed MCP tool's outputSchema now
// (a run compiles one only when the tool first returns structured content)
// and records why odek refuses one in the listing, so that the preflight
// reports a tool every call of which would fail (docs/MCP.md, "CI:
// preflight with odek tools").
func CheckOutputSchemas(reg *loop.Registry, listing []ListedTool) {
	for i := range listing {
		t, ok := reg.Lookup(listing[i].Name)
		if !ok {
			continue
		}
		if a, ok := t.(*mcpclient.ToolAdapter); ok {
			if err := a.CheckOutputSchema(); err != nil {
				listing[i].OutputSchemaError = err.Error()
			}
		}
	}
}

// RefusedOutputSchemas warns about each tool CheckOutputSchemas found
// broken and fails the preflight (exit 3) naming them all; nil when none.
func RefusedOutputSchemas(ios *iostreams.IOStreams, listing []ListedTool) error {
	var names, warns []string
	for _, t := range listing {
		if t.OutputSchemaError != "" {
			names = append(names, t.Name)
			warns = append(warns, t.OutputSchemaError+"; every call of "+t.Name+" would fail")
		}
	}
	if len(names) == 0 {
		return nil
	}
	PrintWarnings(ios, warns)
	return errclass.Wrap(errclass.SetupError, fmt.Errorf("outputSchema refused for %s: fix the server, or switch the tool off (--no-tool, tools.disabled)",
		strings.Join(names, ", ")))
}

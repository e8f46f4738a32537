package main

import (
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/runview"
)

// checkOutputSchemas compiles every listed MCP tool's outputSchema now
// (a run compiles one only when the tool first returns structured content)
// and records why odek refuses one in the listing, so that the preflight
// reports a tool every call of which would fail (docs/MCP.md, "CI:
// preflight with odek tools").
func checkOutputSchemas(reg *loop.Registry, listing []runview.ListedTool) {
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

// refusedOutputSchemas warns about each tool checkOutputSchemas found
// broken and fails the preflight (exit 3) naming them all; nil when none.
func refusedOutputSchemas(ios *iostreams.IOStreams, listing []runview.ListedTool) error {
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
	runview.PrintWarnings(ios, warns)
	return errclass.Wrap(errclass.SetupError, fmt.Errorf("outputSchema refused for %s: fix the server, or switch the tool off (--no-tool, tools.disabled)",
		strings.Join(names, ", ")))
}

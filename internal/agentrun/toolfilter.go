package agentrun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/suggest"
	"github.com/odek-run/odek/internal/untrusted"
)

// NoToolsOrigin is the origin --no-tools records for tools.enabled.
const NoToolsOrigin = "--no-tools"

// checkToolFilters makes --tool and --no-tool (and -c tools.enabled or
// tools.disabled) naming no known tool a setup error that lists the names
// that exist, closest first: a typo there would otherwise switch every tool
// off, or leave on the one meant to be off. Known are the built-in names
// and every tool the started servers listed (a switched-off server's tools
// are not known: it is not configured for this run).
func checkToolFilters(flags config.Overrides, builtins []string, set *mcpclient.Set) error {
	known := slices.Clone(builtins)
	if set != nil {
		known = append(known, set.Discovered()...)
	}
	if set.ResourceReader() != nil {
		known = append(known, mcpclient.ResourceReadToolName)
	}
	if names, origin := flags.Strings("tools.enabled"); origin == NoToolsOrigin && len(names) > 0 {
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("--no-tools cannot be combined with --tool %s", strings.Join(names, ",")))
	}
	for _, key := range []string{"tools.enabled", "tools.disabled"} {
		names, origin := flags.Strings(key)
		for _, n := range names {
			if !slices.Contains(known, n) {
				return errclass.Wrap(errclass.SetupError, unknownToolError(origin, n, known))
			}
		}
	}
	return nil
}

// maxListedTools is how many names the error lists.
const maxListedTools = 8

// unknownToolError names the unknown tool and the ones that exist.
func unknownToolError(origin, name string, known []string) error {
	if len(known) == 0 {
		return fmt.Errorf("%s %q: no such tool; this run has no tools (no built-in tool is on and no MCP server is configured)", origin, name)
	}
	names := suggest.ByDistance(name, known)
	more := ""
	if len(names) > maxListedTools {
		more = fmt.Sprintf(" and %d more (odek tools lists them all)", len(names)-maxListedTools)
		names = names[:maxListedTools]
	}
	return fmt.Errorf("%s %q: no such tool; the tools are (closest first): %s%s", origin, untrusted.TerminalLine(name), strings.Join(names, ", "), more)
}

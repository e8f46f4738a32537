package cli

import (
	"context"
	"strings"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/spf13/cobra"
)

// toolsOptions are what `odek tools` is asked to list.
type toolsOptions struct {
	io        *iostreams.IOStreams
	json      bool
	long      bool // every line of each description, never cut
	overrides config.Overrides
}

// newCmdTools is `odek tools`: RunE fills toolsOptions and hands them to
// runF (runTools when nil).
func newCmdTools(ios *iostreams.IOStreams, runF func(context.Context, *toolsOptions) error) *cobra.Command {
	o := &toolsOptions{io: ios}
	cmd := &cobra.Command{
		Use:   "tools [--json|--long]",
		Short: "List every tool the model would see (built-in and MCP, after approvals)",
		Long: `List every tool the model would see, with its description.

It starts the configured MCP servers, runs the approvals, and never calls the
model: a preflight for CI. It exits 3 if a server fails to start or a tool is
not approved, like a run would, and also (after the listing) if odek refuses
a tool's outputSchema, which a run finds only when the tool is first called.

One line per tool: its name and the first line of its description, cut to
the width on a terminal; --long prints every description whole.

The list is sorted by name and shows each description as its server wrote it
(the model gets it fenced as untrusted text, with a nonce that changes every
run), so the same configuration lists the same bytes every time: --json output
can be diffed or checked in (docs/schema/tools.schema.json).`,
		Example: "  odek tools\n  odek tools --no-tool shell\n  odek tools --json | jq -r '.[].name'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runTools(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print names, descriptions and input schemas as JSON")
	cmd.Flags().BoolVar(&o.long, "long", false, "print each description whole (on a terminal lines are otherwise cut to its width)")
	registerConfigFlag(cmd, &o.overrides)
	// --tool and --no-tool, as on run: the listing is what that run would offer.
	registerSettingFlags(cmd, &o.overrides, func(key string) bool { return strings.HasPrefix(key, "tools.") })
	return cmd
}

// runTools sets up what a run would offer (config, sandbox, MCP servers
// and their approvals, the tools) and lists it.
func runTools(ctx context.Context, o *toolsOptions) error {
	ios := o.io
	runCtx, r, err := agentrun.Setup(ctx, agentrun.Options{IO: ios, Version: version, Overrides: o.overrides, ToolsOnly: true})
	if err != nil {
		return r.FailSetup(ctx, err)
	}
	defer r.Close(runCtx)
	listing := runview.Listing(r.Tools())
	runview.CheckOutputSchemas(r.Tools(), listing)
	write := func() error { return runview.WriteToolsText(ios, listing, o.long) }
	if o.json {
		write = func() error { return runview.WriteToolsJSON(ios, listing) }
	}
	if err := write(); err != nil {
		return err
	}
	return runview.RefusedOutputSchemas(ios, listing)
}

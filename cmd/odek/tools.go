package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/subagent"
	"github.com/spf13/cobra"
)

// buildTools assembles the one registry the loop takes tools from: built-in
// tools, then every approved MCP tool (none for an untrusted sub-agent),
// filtered by tools.enabled/disabled. delegate_tasks joins a run that has
// other tools (a run without tools sends none, for models without tool
// support; a sub-agent could do nothing either), unless subagent.max_depth
// is 0. artifact_read joins them only when one of them can produce an
// artifact. serverLog receives the servers' own stderr lines (nil drops
// them; the tail still reaches error messages).
func (s *runState) buildTools(ios *IOStreams, store *artifact.Store, serverLog io.Writer) (*loop.Registry, error) {
	reader := artifact.NewReadTool(store)
	builtins, err := s.workspaceTools(ios, store)
	if err != nil {
		return nil, err
	}
	offered := func(name string) bool { return toolOffered(name, s.cfg.ToolsEnabled, s.cfg.ToolsDisabled) }
	// Every built-in name stays reserved, also those switched off or not
	// registered in this run (artifact_read, plan, delegate_tasks): no MCP
	// tool may shadow one.
	reserved := append(slices.Clone(builtin.Names), reader.Name(), plan.ToolName, subagent.ToolName)
	var mcpTools []loop.Tool
	if !s.noMCP {
		set, tools, err := startMCP(s.ctx, ios, s.cfg, store, reserved, offered, serverLog)
		s.servers = set
		if err != nil {
			return nil, err
		}
		mcpTools = tools
	}
	all := filterTools(append(builtins, mcpTools...), s.cfg.ToolsEnabled, s.cfg.ToolsDisabled)
	if d := s.delegateTool(ios, store); d != nil && len(all) > 0 {
		all = append(all, filterTools([]loop.Tool{d}, s.cfg.ToolsEnabled, s.cfg.ToolsDisabled)...)
	}
	if producesArtifacts(all) {
		all = append(all, filterTools([]loop.Tool{reader}, s.cfg.ToolsEnabled, s.cfg.ToolsDisabled)...)
	}
	all = s.addPlan(all)
	reg, err := loop.NewRegistry(all...)
	return reg, asSetup(err)
}

// artifactProducer is a tool whose results can hold run artifacts (MCP
// tools: a result cut by max_result_chars is kept whole).
type artifactProducer interface{ ProducesArtifacts() bool }

// producesArtifacts reports whether some tool can produce an artifact, so
// that artifact_read has something to read.
func producesArtifacts(tools []loop.Tool) bool {
	for _, t := range tools {
		if p, ok := t.(artifactProducer); ok && p.ProducesArtifacts() {
			return true
		}
	}
	return false
}

// filterTools keeps the tools toolOffered allows.
func filterTools(tools []loop.Tool, enabled, disabled []string) []loop.Tool {
	out := tools[:0:0]
	for _, t := range tools {
		if toolOffered(t.Name(), enabled, disabled) {
			out = append(out, t)
		}
	}
	return out
}

// toolOffered reports whether a tool is enabled (all are when enabled is
// nil) and not disabled.
func toolOffered(name string, enabled, disabled []string) bool {
	return (enabled == nil || slices.Contains(enabled, name)) && !slices.Contains(disabled, name)
}

type toolsOptions struct {
	json      bool
	overrides config.Overrides
}

func newToolsCmd(ios *IOStreams) *cobra.Command {
	var o toolsOptions
	cmd := &cobra.Command{
		Use:   "tools [--json]",
		Short: "List every tool the model would see (built-in and MCP, after approvals)",
		Long: `List every tool the model would see, with its description.

It starts the configured MCP servers, runs the approvals, and never calls the
model: a preflight for CI. It exits 3 if a server fails to start or a tool is
not approved, like a run would.`,
		Example: "  odek tools\n  odek tools --no-tool shell\n  odek tools --json | jq -r '.[].name'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTools(cmd.Context(), ios, o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print names, descriptions and input schemas as JSON")
	registerConfigFlag(cmd, &o.overrides)
	// --tool and --no-tool, as on run: the listing is what that run would offer.
	registerSettingFlags(cmd, &o.overrides, func(key string) bool { return strings.HasPrefix(key, "tools.") })
	return cmd
}

func runTools(ctx context.Context, ios *IOStreams, o toolsOptions) error {
	cfg, err := loadConfig(ios, o.overrides)
	if err != nil {
		return err
	}
	s := &runState{ctx: ctx, cfg: cfg, errOut: ios.ErrOut}
	defer s.close()
	store := artifact.NewStore("") // never written: no tool runs here
	reg, err := s.buildTools(ios, store, ios.ErrOut)
	if err != nil {
		return err
	}
	specs := reg.Specs()
	if o.json {
		type tool struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		out := make([]tool, len(specs))
		for i, sp := range specs {
			out[i] = tool{sp.Name, sp.Description, sp.Parameters}
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		text := string(b) + "\n"
		if ios.StdoutTTY {
			// encoding/json leaves DEL, C1 and bidi controls raw; their
			// \uXXXX forms are valid JSON escapes of the same strings.
			text = termText(text)
		}
		_, err = io.WriteString(ios.Out, text)
		return err
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	for _, sp := range specs {
		fmt.Fprintf(tw, "%s\t%s\n", termLine(sp.Name), termLine(firstLine(sp.Description)))
	}
	return tw.Flush()
}

// firstLine is the first line of a description for the listing, skipping the
// untrusted-content fence MCP descriptions carry for the model.
func firstLine(s string) string {
	if strings.HasPrefix(s, "<untrusted_content_") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

package agentrun

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"path/filepath"
	"slices"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/subagent"
)

// toolset is what the model can call: the registry, the artifact store
// results spill into, the plan, the workspace and sandbox the built-in tools
// run in, and the risk gate every call passes with the denials it made.
type toolset struct {
	reg     *loop.Registry
	store   *artifact.Store
	plan    *plan.Plan // nil when planning is off
	workDir string     // the working directory, symlinks resolved
	sandbox sandboxState
	gate    loop.Gate
	denied  runview.Denials // the calls the gate refused, for the report
}

// newToolset is a run's toolset before its tools are built: the run's own
// artifact store, capped by maintenance.artifacts_max_run_mib (sinks warn
// the operator of each result the cap refuses).
func newToolset(conf *runConf, sinks *runSinks) *toolset {
	store := artifact.NewStore(filepath.Join(conf.cfg.Home, "artifacts", conf.runID))
	store.LimitSaved(int64(conf.cfg.ArtifactsMaxRunMiB)<<20, func(e *artifact.CapError) {
		if sinks != nil && sinks.warn != nil { // the view, which sets warn, starts after the tools
			sinks.warn(capWarning(e))
		}
	})
	return &toolset{store: store}
}

// buildTools assembles the one registry the loop takes tools from, and
// starts the MCP servers: built-in tools, then every approved MCP tool
// (none for an untrusted sub-agent), filtered by tools.enabled/disabled.
// delegate_tasks joins a run that has other tools (a run without tools
// sends none, for models without tool support; a sub-agent could do
// nothing either), unless subagent.max_depth is 0. artifact_read joins
// them only when one of them can produce an artifact. serverLog receives
// the servers' own stderr lines (nil drops them; the tail still reaches
// error messages). It fills r.tools and r.servers.
func (r *Run) buildTools(ctx context.Context, ios *iostreams.IOStreams, serverLog io.Writer) error {
	ts, cfg := r.tools, r.conf.cfg
	reader := artifact.NewReadTool(ts.store)
	wp, err := ts.planWorkspace(ios, r.conf)
	if err != nil {
		return err
	}
	builtins, err := r.startServersBeside(ctx, ios, serverLog, func(wios *iostreams.IOStreams) ([]loop.Tool, error) {
		return ts.workspaceTools(wios, r.conf, wp, func(msg string) { r.sinks.warn(msg) })
	})
	if err != nil {
		return err
	}
	builtins = r.cas.wrapTools(builtins)
	var mcpTools []loop.Tool
	if r.servers.set != nil {
		rememberTools(cfg.Home, r.servers.set)
		mcpTools = mcpLoopTools(r.servers.set)
		if rr := r.servers.set.ResourceReader(); rr != nil {
			mcpTools = append(mcpTools, rr) // follows the servers' resource links
		}
	}
	reserved := BuiltinToolNames()
	if err := checkToolFilters(r.conf.flags, reserved, r.servers.set); err != nil {
		return err
	}
	all := filterTools(append(builtins, mcpTools...), cfg.ToolsEnabled, cfg.ToolsDisabled)
	d, err := r.delegateTool(ios)
	if err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	if d != nil && len(all) > 0 {
		all = append(all, filterTools([]loop.Tool{d}, cfg.ToolsEnabled, cfg.ToolsDisabled)...)
	}
	if producesArtifacts(all) {
		all = append(all, filterTools([]loop.Tool{reader}, cfg.ToolsEnabled, cfg.ToolsDisabled)...)
	}
	all, ts.plan = addPlan(all, cfg, r.sinks.emitter)
	ts.reg, err = loop.NewRegistry(all...)
	return errclass.Wrap(errclass.SetupError, err)
}

// startServersBeside starts the MCP servers (r.servers) and runs build
// meanwhile: the built-in tools are made while the servers' processes
// start, which is most of the wait for the first model call. build's
// stderr lines are held until the servers are up, so they never cut into
// a server's approval prompt. An error of build comes first, as it did
// when it ran before the servers; the caller closes what started.
func (r *Run) startServersBeside(ctx context.Context, ios *iostreams.IOStreams, serverLog io.Writer,
	build func(*iostreams.IOStreams) ([]loop.Tool, error)) ([]loop.Tool, error) {
	r.servers = &runServers{errOut: ios.ErrOut, kept: r.o.acp.keptServers(), run: r}
	var held bytes.Buffer
	wios := *ios
	wios.ErrOut = &held
	var tools []loop.Tool
	var buildErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		tools, buildErr = build(&wios)
	}()
	var err error
	if !r.conf.place.noMCP {
		cfg := r.conf.cfg
		offered := func(name string) bool { return toolOffered(name, cfg.ToolsEnabled, cfg.ToolsDisabled) }
		// Every built-in name stays reserved, also those switched off or
		// not registered in this run (artifact_read, plan,
		// delegate_tasks): no MCP tool may shadow one.
		r.servers.set, err = r.startMCP(ctx, ios, offered, serverLog)
	}
	<-done
	_, _ = ios.ErrOut.Write(held.Bytes())
	return tools, cmp.Or(buildErr, err)
}

// BuiltinToolNames are the names of odek's own tools, also those switched
// off or not registered in a run (artifact_read, plan, delegate_tasks): reserved against MCP
// tools, known to --tool/--no-tool, offered by completion.
func BuiltinToolNames() []string {
	names := append(slices.Clone(builtin.Names), artifact.NewReadTool(nil).Name(), plan.ToolName, subagent.ToolName)
	slices.Sort(names)
	return slices.Compact(names)
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

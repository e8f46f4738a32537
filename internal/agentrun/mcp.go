package agentrun

import (
	"context"
	"io"

	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/sandbox"
)

// startMCP starts every configured server (concurrently, after approvals)
// and returns the set. Each stdio server's policy comes from the sandbox
// (a server without a sandbox setting gets its origin's default first,
// project: workspace-write); keep filters the tools, serverLog receives the
// servers' stderr lines.
func (r *Run) startMCP(ctx context.Context, ios *iostreams.IOStreams, keep func(string) bool, serverLog io.Writer) (*mcpclient.Set, error) {
	cfg, cas := r.conf.cfg, r.cas
	sandboxFor, notices := r.tools.sandbox.serverPolicy(ios), r.sinks.notices
	if len(cfg.MCPServers) == 0 {
		return nil, nil
	}
	specs := make([]mcpclient.ServerSpec, len(cfg.MCPServers))
	for i, sv := range cfg.MCPServers {
		specs[i] = mcpclient.ServerSpec{Name: sv.Name, Config: sv.Config, Project: sv.Project, Dir: sv.Dir, AutoApprove: sv.Config.AutoApprove}
		if specs[i].Config.Sandbox == "" && sv.Project {
			specs[i].Config.Sandbox = sandbox.ModeWorkspaceWrite
		}
	}
	ao := approval.Options{Home: cfg.Home, ApproveAll: ios.Env("ODEK_APPROVE_MCP") == "1"}
	if in, ok := ios.PromptIn(); ok {
		ao.Confirmer = approval.NewPrompter(in, ios.ErrOut)
	}
	r.o.acp.approvals(&ao)
	gate, err := approval.New(ao)
	if err != nil {
		return nil, err
	}
	opts := mcpclient.StartOptions{
		Servers: specs, Builtins: BuiltinToolNames(), Gate: gate,
		Client: mcpclient.Options{Stderr: serverLog, LookupEnv: cfg.LookupEnv, Store: r.tools.store, Version: r.o.Version,
			InterruptGrace: Seams.MCPInterruptGrace, Sandbox: sandboxFor, OnNotice: notices.Handle,
			Telemetry: r.tel},
		Keep: keep,
	}
	cas.mcpHooks(&opts.Client)
	if kept := r.o.acp.keptServers(); kept != nil {
		key, err := serversKey(cfg, opts, ao.ApproveAll)
		if err != nil {
			return nil, err
		}
		return kept.borrow(ctx, r, ios, key, opts)
	}
	set, warnings, err := mcpclient.Start(ctx, opts)
	runview.PrintWarnings(ios, warnings)
	if err != nil {
		return nil, err
	}
	return set, nil
}

// mcpLoopTools are the started servers' tools as the loop takes them.
func mcpLoopTools(set *mcpclient.Set) []loop.Tool {
	var tools []loop.Tool
	for _, t := range set.Tools() {
		tools = append(tools, t)
	}
	return tools
}

// mcpServersData describes the started servers for run_started: name,
// transport, era, protocol version and registered tool count.
func mcpServersData(set *mcpclient.Set) []map[string]any {
	if set == nil || len(set.Clients()) == 0 {
		return nil
	}
	perServer := map[string]int{}
	for _, t := range set.Tools() {
		perServer[t.Client.Name()]++
	}
	var out []map[string]any
	for _, c := range set.Clients() {
		out = append(out, map[string]any{"server": c.Name(), "transport": c.Transport(),
			"era": string(c.Era()), "protocol_version": c.ProtocolVersion(), "tools": perServer[c.Name()]})
	}
	return out
}

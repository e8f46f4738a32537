package main

import (
	"context"
	"io"

	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/sandbox"
)

// startMCP starts every configured server (concurrently, after approvals) and
// returns their tools as loop tools.
// sandboxFor gives each stdio server's policy; a server without a sandbox
// setting gets its origin's default first (project: workspace-write).
func startMCP(ctx context.Context, ios *iostreams.IOStreams, cfg *config.Config, store *artifact.Store, builtins []string, keep func(string) bool,
	serverLog io.Writer, cas *cassetteState, sandboxFor func(mcpclient.ServerConfig) (*sandbox.Policy, error), notices *runview.Notices) (*mcpclient.Set, error) {
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
	if ios.StdinTTY && ios.StderrTTY {
		ao.Confirmer = approval.NewPrompter(ios.In, ios.ErrOut)
	}
	gate, err := approval.New(ao)
	if err != nil {
		return nil, err
	}
	opts := mcpclient.StartOptions{
		Servers: specs, Builtins: builtins, Gate: gate,
		Client: mcpclient.Options{Stderr: serverLog, LookupEnv: cfg.LookupEnv, Store: store, Version: version,
			InterruptGrace: mcpInterruptGrace, Sandbox: sandboxFor, OnNotice: notices.Handle},
		Keep: keep,
	}
	cas.mcpHooks(&opts.Client)
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

package main

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/sandbox"
)

// startMCP starts every configured server (concurrently, after approvals) and
// returns their tools as loop tools.
// sandboxFor gives each stdio server's policy; a server without a sandbox
// setting gets its origin's default first (project: workspace-write).
func startMCP(ctx context.Context, ios *iostreams.IOStreams, cfg *config.Config, store *artifact.Store, builtins []string, keep func(string) bool,
	serverLog io.Writer, cas *cassetteState, sandboxFor func(mcpclient.ServerConfig) (*sandbox.Policy, error), notices *mcpNotices) (*mcpclient.Set, error) {
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
			InterruptGrace: mcpInterruptGrace, Sandbox: sandboxFor, OnNotice: notices.handle},
		Keep: keep,
	}
	cas.mcpHooks(&opts.Client)
	set, warnings, err := mcpclient.Start(ctx, opts)
	printWarnings(ios, warnings)
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

// mcpNotices turns what MCP servers did during calls into events and
// status-line progress. The view is set once the run has one; notices come
// from the connections' goroutines, hence the atomic.
type mcpNotices struct {
	em   *events.Emitter
	view atomic.Pointer[progressView]
	live atomic.Pointer[liveness.Monitor] // the run's progress clock (monitor)
}

func (n *mcpNotices) handle(x mcpclient.Notice) {
	if n == nil {
		return
	}
	tool := ""
	if x.Tool != "" {
		tool = x.Server + "__" + x.Tool
	}
	switch x.Kind {
	case mcpclient.NoticeProgress:
		data := map[string]any{"server": x.Server, "progress": x.Progress}
		if x.Total > 0 {
			data["total"] = x.Total
		}
		if x.Reason != "" {
			data["message"] = x.Reason
		}
		n.em.Emit(events.MCPProgress, 0, tool, data)
		n.view.Load().toolProgress(tool, x.ProgressLine())
		n.live.Load().Reported(tool, x.Progress, x.Reason) // progress that moves is a sign of life
	case mcpclient.NoticeServerSkipped:
		n.em.Emit(events.MCPServerSkipped, 0, "", map[string]any{"server": x.Server, "reason": x.Reason})
	case mcpclient.NoticeServerRestarted, mcpclient.NoticeServerLost:
		typ, count := events.MCPServerRestarted, "restart"
		if x.Kind == mcpclient.NoticeServerLost {
			typ, count = events.MCPServerLost, "restarts"
		}
		n.em.Emit(typ, 0, "", map[string]any{"server": x.Server, count: x.Restart, "restart_limit": x.Limit, "reason": x.Reason})
	case mcpclient.NoticeTask:
		data := map[string]any{"server": x.Server, "task_id": x.Task, "status": x.TaskStatus}
		if x.Reason != "" {
			data["message"] = x.Reason
		}
		n.em.Emit(events.MCPTask, 0, tool, data)
		n.view.Load().toolProgress(tool, "task "+x.TaskStatus)
		n.live.Load().Reported(tool+" task", 0, x.TaskStatus+" "+x.Reason) // a status or message that moves
	case mcpclient.NoticeInputAnswered, mcpclient.NoticeInputDeclined:
		outcome := "declined"
		if x.Kind == mcpclient.NoticeInputAnswered {
			outcome = "answered"
		}
		n.em.Emit(events.MCPInput, 0, tool, map[string]any{"server": x.Server, "method": x.Method, "outcome": outcome, "reason": x.Reason})
	}
}

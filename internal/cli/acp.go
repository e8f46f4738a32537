package cli

import (
	"context"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/odek-run/odek/internal/acp"
	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/spf13/cobra"
)

// acpOptions are what `odek acp` is asked to do: the run flags every turn
// is set up with. RunE only fills them.
type acpOptions struct {
	io  *iostreams.IOStreams
	run agentrun.Options
}

// newCmdACP is `odek acp`: RunE fills acpOptions and hands them to runF
// (runACP when nil).
func newCmdACP(ios *iostreams.IOStreams, runF func(context.Context, *acpOptions) error) *cobra.Command {
	o := &acpOptions{io: ios}
	cmd := &cobra.Command{
		Use:   "acp [flags]",
		Short: "Serve the Agent Client Protocol on stdin and stdout, for editors",
		Long: `Be an Agent Client Protocol (ACP v1) agent: an editor or a parent process
starts odek acp and speaks JSON-RPC over its stdin and stdout. Each
session/new creates an odek session in the client's working directory,
each session/prompt is a turn run as odek continue runs one (budgets,
sandbox, risk policy, events), a call the policy would ask a terminal about
becomes session/request_permission (so do the approvals of project MCP
servers, MCP tools and project hooks, for the session only), and
session/cancel stops the turn as Ctrl-C does. A session's MCP servers serve
all its turns. session/load and session/list reach odek's saved sessions.

stdout belongs to the protocol; diagnostics go to stderr. The flags apply
to every turn: the budgets (--max-*) to each turn on its own, --events-jsonl
receives the events of every turn. See docs/ACP.md.

Exit codes: 0 when the client closes stdin, 3 setup error, 130 interrupted.`,
		Example: `  odek acp
  odek acp --max-cost-usd 1 --events-jsonl acp-events.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runACP(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	registerRunFlags(cmd, &o.run.Overrides)
	fl.StringVar(&o.run.EventsPath, "events-jsonl", "", "append odek.event/v1 events of every turn to this file (0600; parent dir must exist), or write them to an existing FIFO")
	fl.BoolVar(&o.run.EventsIncludeArgs, "events-include-args", false, "include raw (redacted) tool arguments in tool_call_started events")
	return cmd
}

// runACP serves ACP on the process's stdin and stdout until the client
// closes stdin or ctx (SIGINT, SIGTERM) ends. A client that vanished must
// not kill odek with SIGPIPE while it cleans up: a write to it is an
// error instead.
func runACP(ctx context.Context, o *acpOptions) error {
	signal.Ignore(syscall.SIGPIPE)
	ro := o.run
	ro.IO, ro.Version, ro.Quiet = o.io, version, true
	ro.Cassette.Mode = agentrun.ReplayStrict // no cassette: the mode is unused but checked
	log := slog.New(slog.NewTextHandler(o.io.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return acp.Serve(ctx, acp.Options{Runner: agentrun.NewACPRunner(ro), Version: version, Log: log}, o.io.In, o.io.Out)
}

// Package agentrun assembles one run and runs it: the config, the
// workspace and its sandbox, the MCP servers and their approvals, the
// built-in tools and delegate_tasks, the risk gate, the session, the
// cassette and the model client, each a typed part built in one order by
// Setup, for every kind of run (odek run and continue, a sub-agent child,
// and odek tools, which needs the tools only). Execute runs the loop and
// shows how it ended through internal/runview; Close releases the parts
// in reverse order.
//
// No part holds a context: Setup returns the run's context beside the
// run, and Execute and Close are handed it.
package agentrun

import (
	"context"
	"sync/atomic"

	"github.com/odek-run/odek/internal/agentsmd"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/session"
	"github.com/odek-run/odek/internal/telemetry"
)

// Options say which run to assemble. A command fills them from its flags
// and arguments; Setup does every check no flag parser makes.
type Options struct {
	IO        *iostreams.IOStreams
	Version   string           // odek's version: MCP clientInfo, cassettes, stream-json's init line
	Overrides config.Overrides // -c and the setting flags
	Quiet     bool             // --quiet: no progress, no server stderr

	// ToolsOnly assembles what odek tools lists: the config, the
	// workspace, the sandbox, the MCP servers (approvals included) and the
	// built-in tools; no run id, events, budget, model or cassette.
	ToolsOnly bool

	// A run's (run and continue): what it does, where its events and
	// output go.
	Task              string
	UntrustedTask     bool                  // the task holds stdin or file text: the run starts tainted
	Session           bool                  // run --session, continue: the conversation is saved
	Refs              []session.ExternalRef // --external-ref
	Resume            *session.Session      // continue: the session carried on
	SessionID         string                // run --session-id: the new session's id ("" = a fresh one)
	EventsPath        string                // --events-jsonl
	EventsIncludeArgs bool
	Output            string   // --output: runview.Text, JSON or StreamJSON
	Cassette          Cassette // --record, --replay (a sub-agent's too)
	PrintSystem       bool     // --print-system: the run is set up to show its prompt; no API key needed
	FailOnDenial      bool
	FullAuto          bool

	// Child makes the run a sub-agent (odek subagent); nil for the others.
	Child *Child

	// acp is an odek acp turn's additions (acp.go); nil for the others.
	acp *acpTurn
}

// Child is what odek subagent is told beside the run's options: the task
// (a task file, or --goal with --context) and the flags that beat it.
type Child struct {
	Goal, Context, TaskFile string
	ParentSession, Profile  string
	OutputSchema            string // --output-schema: a JSON Schema file
	Stream                  bool   // --stream: typed lines before the result
	// KeyFile (--key-file) is a file holding the API key, for a child whose
	// parent cannot hand it over on descriptor 3 (a pod: a mounted Secret).
	KeyFile string
	// ArtifactFrame (--artifact-frame) sends the artifacts after the result
	// as a frame on stdout (wire.WriteArtifactFrame), for a child whose
	// stdout is all that reaches its parent.
	ArtifactFrame bool
}

// Run is one run assembled from its typed parts; Setup builds them in
// order, Close releases them in reverse.
type Run struct {
	o       Options
	conf    *runConf
	limits  *runLimits
	sinks   *runSinks
	servers *runServers
	tools   *toolset
	model   runModel
	session *runSession       // nil without run --session or continue
	schema  *outputSchema     // nil without --output-schema
	cas     *cassetteState    // --record or --replay; nil without
	hooks   *runHooks         // lifecycle hooks; nil before approveHooks
	child   *child            // a sub-agent's task, limits and result; nil otherwise
	agents  []agentsmd.File   // the project instructions (AGENTS.md) read; nil with no_agents
	tel     *telemetry.Tracer // the run's tracing; nil when off
	span    *telemetry.Span   // the run's invoke_agent span; nil when off or ended
	// tainted: the model has seen untrusted content (the loop's
	// OnUntrusted, or a continued session that lost messages), so
	// delegate_tasks passes parent_trust untrusted (docs/SUBAGENTS.md).
	tainted atomic.Bool
}

// Execute runs the loop to its end and shows how it ended; sig is the
// signal context (it tells an interrupt from the run's own deadlines),
// ctx the run's, from Setup. A run starts its history (the task, a new
// session, or the one continued), runs, saves its session and prints the
// answer or the report (--output). A sub-agent runs under its deadlines;
// Close prints its result. The error carries the exit code.
func (r *Run) Execute(sig, ctx context.Context) error {
	if r.child != nil {
		return r.child.execute(sig, ctx)
	}
	ios, o := r.o.IO, r.o
	if o.UntrustedTask {
		r.taint() // stdin and files are anyone's text, not the operator's
	}
	opts := r.loopOptions()
	h, err := r.beginHistory(ios, opts.System) // the task, a new session, or the one continued
	if err != nil {
		r.endAgentSpan(sig, nil, err)
		if runview.ReportsJSON(o.Output) {
			r.sinks.closeEvents() // stream-json: nothing may follow the report
			writeSetupReport(sig, ios, r, err)
		}
		return err
	}
	r.sessionOptions(&opts)
	r.livenessOptions(&opts)
	r.streamOptions(&opts)
	r.narrationOptions(&opts)
	o.acp.loopOptions(&opts)
	res, runErr := loop.Continue(ctx, opts, h)
	r.sinks.streamer.Answer(res)
	runErr = r.cas.finish(sig, runErr)
	runErr = r.tools.denied.FailRun(o.FailOnDenial, runErr)
	r.endAgentSpan(sig, res, runErr)
	r.sinks.view.Stop()
	r.session.end(res)
	err = r.finish(sig, ios, res, runErr)
	r.acpDone(sig, res, runErr)
	r.session.goOnNote(ios, o.Quiet)
	return err
}

// FailSetup shows a failed Setup the way its kind shows an outcome, and
// returns the error for the exit code: a run's report when --output asks
// for one (not for --print-system or odek tools), a sub-agent's result
// object (budget_exhausted, exit 4, for a shared budget already spent;
// else a setup error, exit 3). sig is the signal context.
func (r *Run) FailSetup(sig context.Context, err error) error {
	if r.child != nil {
		return r.child.failSetup(r.o.IO, err)
	}
	if runview.ReportsJSON(r.o.Output) && !r.o.PrintSystem && !r.o.ToolsOnly {
		writeSetupReport(sig, r.o.IO, r, err)
	}
	return err
}

// SystemPrompt is the system prompt the run would send first, the output
// schema's instruction included (run --print-system).
func (r *Run) SystemPrompt() string { return r.schema.system(r.systemPrompt()) }

// Tools is the registry the model would be offered (odek tools).
func (r *Run) Tools() *loop.Registry { return r.tools.reg }

// Close releases the parts in reverse order of setup; ctx is the run's
// context (nil when setup failed before it). A sub-agent's closing lines
// (finished, then the result) go last, after its relayed events are
// drained.
func (r *Run) Close(ctx context.Context) {
	r.close(ctx)
	r.child.deliver()
}

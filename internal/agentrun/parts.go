package agentrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

// The typed parts a run is assembled from (Run): each command builds
// the ones it needs, in order, and nothing holds a context.

// runConf is what the run is: its resolved config, the command line's
// settings, its identity and clock, and its place in the delegation tree.
type runConf struct {
	cfg      *config.Config
	flags    config.Overrides // the command line's settings, for checks that name a flag
	runID    string           // "" for odek tools, which runs nothing
	start    time.Time
	now      func() time.Time
	fullAuto bool // --full-auto: workspace-write, network off, every contained class allowed
	place    placement
}

// newRunConf starts a run's identity and clock: the config is loaded next,
// by the command (a sub-agent first reads its task).
func newRunConf(ios *iostreams.IOStreams) *runConf {
	return &runConf{runID: events.NewRunID(), start: ios.Now(), now: ios.Now,
		place: placement{depth: wire.ParseDepth(ios.Env(wire.EnvDepth))}}
}

// placement is a run's place in the delegation tree (docs/SUBAGENTS.md).
type placement struct {
	depth int    // from ODEK_SUBAGENT_DEPTH
	trust string // "" = trusted, a top-level run
	noMCP bool   // MCP servers are left out (an untrusted sub-agent)
	// parentPolicy is a sub-agent's parent's risk policy, a second gate of
	// every call (nil for a top-level run).
	parentPolicy *wire.Policy
	// parentSession files a sub-agent's own sub-agents' artifacts under its
	// parent's session.
	parentSession string
	// sandboxLimit is a sub-agent's parent's sandbox (nil at top level).
	sandboxLimit *sandbox.Policy
	// agentID and agentType are a sub-agent's task id and profile, which
	// its hooks are told ("" at top level).
	agentID, agentType string
}

// runLimits is the budget: the tracker, and the cancel functions of the
// run's context, which start returns to the command and nobody keeps.
type runLimits struct {
	tracker *budget.Tracker
	overrun context.CancelCauseFunc // ends the run with a sub-agent overrun's budget error
	depart  context.CancelCauseFunc // ends the run at a replay's first departure
	cancel  context.CancelFunc
}

// start builds the tracker and returns the run's context: ctx with the
// runtime budget as a hard deadline whose cause is the budget error, ended
// early by an overrun (a charged-back budget error, exit 4) or a departure
// from a replayed cassette. A cost cap the prices cannot enforce never gets
// here: the config refuses it (RequireEnforceableBudget).
func (l *runLimits) start(ctx context.Context, conf *runConf) context.Context {
	cfg := conf.cfg
	prices := cfg.BudgetPrices()         // a project's model is never priced below the price table
	fallbacks, _ := cfg.FallbackPrices() // a cost cap with an unpriced one never gets here
	l.tracker = budget.New(budget.Options{Limits: cfg.Limits, Prices: prices, Model: cfg.Model, ModelPrices: fallbacks,
		Start: conf.start, Now: conf.now})
	ctx, l.overrun = context.WithCancelCause(ctx)
	var stop context.CancelFunc
	if dl, ok := l.tracker.Deadline(); ok {
		ctx, stop = context.WithDeadlineCause(ctx, dl, l.tracker.RuntimeError(dl))
	} else {
		ctx, stop = context.WithCancel(ctx)
	}
	ctx, l.depart = context.WithCancelCause(ctx)
	l.cancel = func() { l.depart(nil); stop() }
	return ctx
}

// departed is the cassette's departure callback: it stops the run (before
// start there is nothing to stop).
func (l *runLimits) departed(err error) {
	if l.depart != nil {
		l.depart(err)
	}
}

// stop releases the run's context. Idempotent.
func (l *runLimits) stop() {
	if l.cancel != nil {
		l.cancel()
	}
	if l.overrun != nil {
		l.overrun(nil)
	}
}

// runSinks is where the run's events and words go: the emitter over the
// --events-jsonl file and stream-json's stdout (or a sub-agent's relay),
// the progress view and the warnings above it, and MCP notices.
type runSinks struct {
	emitter  *events.Emitter
	jsonl    *events.JSONLSink // --events-jsonl
	stream   *events.JSONLSink // --output stream-json: stdout
	relay    bool              // a sub-agent's events are relayed to its parent
	view     *runview.Progress
	warn     func(string)      // prints a warning, above the status line on a TTY
	notices  *runview.Notices  // MCP progress and input requests → events, view
	streamer *runview.Streamer // --output stream-json's text and tool_result lines; nil otherwise
}

// openSinks opens the JSONL sink (a setup error if it cannot), the stdout
// sink of stream-json, and the emitter.
func openSinks(ctx context.Context, ios *iostreams.IOStreams, runID, eventsPath, output string, extra ...events.Sink) (*runSinks, error) {
	k := &runSinks{}
	sinks := append([]events.Sink(nil), extra...)
	if eventsPath != "" {
		sink, err := events.OpenJSONL(ctx, eventsPath)
		if err != nil {
			return k, errclass.Wrap(errclass.SetupError, err)
		}
		k.jsonl = sink
		sinks = append(sinks, runview.EventsOnly{Sink: sink})
	}
	if output == runview.StreamJSON {
		k.stream = runview.StdoutSink(ios)
		sinks = append(sinks, runview.StreamSink{JSONLSink: k.stream})
	}
	for i := range sinks {
		sinks[i] = Seams.WrapEventSink(sinks[i])
	}
	k.emitter = events.NewEmitter(events.Options{
		RunID: runID, Sinks: sinks, Now: ios.Now, Redact: redact.String, Buffer: Seams.EventBuffer,
		OnSinkError: func(err error) {
			fmt.Fprintf(ios.ErrOut, "odek: events-jsonl write failed: %v\n", untrusted.Terminal(err.Error()))
		},
		OnDrop: func(n int64) { fmt.Fprintf(ios.ErrOut, "odek: warning: %s\n", runview.DropWarning(n)) },
	})
	k.notices = runview.NewNotices(k.emitter)
	return k, nil
}

// startView starts the progress view and the warnings that keep clear of it.
func (k *runSinks) startView(ios *iostreams.IOStreams, noColor, quiet bool, start time.Time) {
	k.view = runview.NewProgress(ios, noColor || ios.Env("NO_COLOR") != "", quiet, start)
	k.notices.SetView(k.view)
	k.warn = func(msg string) {
		if !k.view.Warning(msg) {
			runview.PrintWarnings(ios, []string{msg})
		}
	}
}

// forwarding reports whether this run writes its events somewhere (the
// --events-jsonl file, stream-json's stdout, a parent), so its sub-agents
// relay theirs.
func (k *runSinks) forwarding() bool { return k.jsonl != nil || k.stream != nil || k.relay }

// closeEvents drains the emitter, for at most two seconds: a stuck disk or
// reader must not hang the exit. Idempotent.
func (k *runSinks) closeEvents() {
	if k.emitter != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = k.emitter.Close(ctx)
		cancel()
	}
}

// close drains the events and closes the file.
func (k *runSinks) close() {
	k.closeEvents()
	if k.jsonl != nil {
		_ = k.jsonl.Close()
	}
}

// runServers is the run's MCP servers (none for an untrusted sub-agent).
type runServers struct {
	set    *mcpclient.Set
	errOut io.Writer   // where close says what an interrupt stopped
	kept   *acpServers // the ACP session's, which set is borrowed from; nil otherwise
	run    *Run        // the borrower, for giving them back
}

// close shuts the servers down: gracefully after a normal run (ctx is the
// run's context; nil when setup failed before it existed, or undone by a
// budget or a departure); after an interrupt at once (about half a second,
// even for a server that ignores its stdin closing and SIGTERM), saying
// which were stopped, so the prompt is back within a second.
func (sv *runServers) close(ctx context.Context, departed bool) {
	if sv == nil {
		return
	}
	if sv.kept != nil { // the session's: they stay up for its next turn
		sv.kept.giveBack(sv.run)
		return
	}
	if sv.set == nil {
		return
	}
	if ctx == nil || !errors.Is(ctx.Err(), context.Canceled) || budget.IsBudget(context.Cause(ctx)) || departed {
		_ = sv.set.Close()
		return
	}
	var names []string
	for _, c := range sv.set.Clients() {
		names = append(names, c.Name())
	}
	_ = sv.set.CloseNow()
	reportStopped(sv.errOut, names) // unless a second interrupt is already exiting
}

// runModel is the model client (the fallback chain over it when
// llm.fallback_models is set) and the reasoning effort it is sent.
type runModel struct {
	client loop.Model
	chain  *llm.Chain // nil without fallback models
	effort string     // sent as reasoning_effort; "" sends none
}

// models are the models the run sent requests to, in order: the run's
// own, then each fallback it moved to.
func (m *runModel) models(own string) []string {
	if m.chain != nil {
		return m.chain.Models()
	}
	return []string{own}
}

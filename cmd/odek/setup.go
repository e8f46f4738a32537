package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/odek-run/odek/internal/sandbox"
	"io"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/session"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// runState is everything one run wires together; close releases it.
type runState struct {
	cancel   context.CancelFunc
	cfg      *config.Config
	flags    config.Overrides // the command line's settings, for checks that name a flag
	runID    string
	start    time.Time
	emitter  *events.Emitter
	sink     *events.JSONLSink // --events-jsonl
	stream   *events.JSONLSink // --output stream-json: stdout
	tracker  *budget.Tracker
	overrun  context.CancelCauseFunc // ends ctx with a sub-agent overrun's budget error
	servers  *mcpclient.Set
	store    *artifact.Store
	tools    *loop.Registry
	model    *llm.Client
	view     *progressView
	notices  *mcpNotices    // MCP progress and input requests → events, view
	schema   *outputSchema  // nil without --output-schema
	warn     func(string)   // prints a warning, above the status line on a TTY
	errOut   io.Writer      // where closeServers says what an interrupt stopped
	gate     loop.Gate      // the risk policy every call passes
	denied   denials        // the calls it refused, for the report
	streamer *streamer      // --output stream-json's text and tool_result lines; nil otherwise
	workDir  string         // the working directory, symlinks resolved
	cas      *cassetteState // --record or --replay; nil without
	depart   context.CancelCauseFunc
	sandbox  sandboxState // how shell commands are confined
	// fullAuto: --full-auto (workspace-write, network off, every class
	// the sandbox contains allowed).
	fullAuto bool
	// sandboxLimit is a sub-agent's parent's sandbox (nil at top level).
	sandboxLimit *sandbox.Policy

	reasoningEffort string // sent as reasoning_effort; "" sends none

	plan       *plan.Plan       // nil when planning is off
	sessions   *session.Store   // with sess: the session this run saves
	sess       *session.Session //
	saveFailed bool             // the failed-save warning was given

	// Place in the delegation tree (docs/SUBAGENTS.md): depth from
	// ODEK_SUBAGENT_DEPTH, trust ("" = trusted, a top-level run), and
	// whether MCP servers are left out (an untrusted sub-agent).
	depth int
	trust string
	noMCP bool
	relay bool // this run's events are relayed to its parent
	// parentPolicy is a sub-agent's parent's risk policy, a second gate of
	// every call (nil for a top-level run).
	parentPolicy *wire.Policy
	// parentSession files a sub-agent's own sub-agents' artifacts under its
	// parent's session.
	parentSession string
	// tainted: the model has seen untrusted content (the loop's
	// OnUntrusted, or a continued session that lost messages), so
	// delegate_tasks passes parent_trust untrusted (docs/SUBAGENTS.md).
	tainted atomic.Bool
}

// odekHome is $ODEK_HOME, else ~/.odek. Its error is a setup error.
func odekHome(ios *IOStreams) (string, error) {
	if h := ios.env("ODEK_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		return abs, asSetup(err)
	}
	home := ios.env("HOME")
	if home == "" {
		return "", setupErrorf("cannot find the odek home: set ODEK_HOME or HOME")
	}
	return filepath.Join(home, ".odek"), nil
}

// loadConfig resolves the layered config and prints its warnings.
func loadConfig(ios *IOStreams, flags config.Overrides) (*config.Config, error) {
	home, err := odekHome(ios)
	if err != nil {
		return nil, err
	}
	wd, err := ios.Getwd()
	if err != nil {
		return nil, asSetup(err)
	}
	cfg, warnings, err := config.Load(config.LoadOptions{Home: home, Dir: wd, LookupEnv: ios.LookupEnv, Flags: flags})
	printWarnings(ios, warnings)
	if err != nil {
		return nil, err
	}
	redact.Register(cfg.APIKey)
	for _, v := range cfg.Env {
		redact.Register(v)
	}
	return cfg, nil
}

func printWarnings(ios *IOStreams, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(ios.ErrOut, "odek: warning: %s\n", termText(w))
	}
}

// setUp builds the run. On error, whatever was started is released and the
// partial state is returned for the setup report.
func setUp(ctx context.Context, ios *IOStreams, o runOptions) (runCtx context.Context, s *runState, err error) {
	s = &runState{start: ios.Now(), runID: events.NewRunID(), errOut: ios.ErrOut, depth: wire.ParseDepth(ios.env(wire.EnvDepth))}
	defer func() {
		if err != nil {
			s.close(runCtx)
		}
	}()
	s.flags, s.fullAuto = o.overrides, o.fullAuto
	if s.cfg, err = loadConfig(ios, o.overrides); err != nil {
		return runCtx, s, err
	}
	if s.cas, err = s.openCassette(ios, o.cassette); err != nil {
		return runCtx, s, err
	}
	if err = checkRunnable(s.cfg, s.cas.replaying()); err != nil && !o.printSystem { // showing the prompt calls no model
		return runCtx, s, err
	}
	// Before anything starts: a bad schema must not cost a server or a call.
	if s.schema, err = loadOutputSchema(s.cfg); err != nil {
		return runCtx, s, err
	}
	if err = s.openEvents(ctx, ios, o); err != nil {
		return runCtx, s, err
	}
	runCtx = s.startBudget(ctx, ios)
	s.store = artifact.NewStore(filepath.Join(s.cfg.Home, "artifacts", s.runID))
	if s.tools, err = s.buildTools(runCtx, ios, s.store, serverLog(ios, o.quiet)); err != nil {
		return runCtx, s, err
	}
	return runCtx, s, s.startModel(ios, ios, o.quiet)
}

// checkRunnable refuses a config no run can start with: no API key
// (DECISION 10), or a cost cap the prices cannot enforce.
// A replay needs no key: it never reaches the endpoint.
func checkRunnable(cfg *config.Config, replaying bool) error {
	if err := cfg.RequireAPIKey(); err != nil && !replaying {
		return err
	}
	if err := cfg.RequireEnforceableBudget(); err != nil {
		return err
	}
	return nil
}

// serverLog is where the MCP servers' own stderr lines go: nowhere with
// --quiet (their tail still reaches error messages).
func serverLog(ios *IOStreams, quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return ios.ErrOut
}

// startModel builds, once the tools are there, the progress view and the
// warnings above it, the risk gate (asking on gateIOS) and the model client
// with its reasoning effort.
func (s *runState) startModel(ios, gateIOS *IOStreams, quiet bool) (err error) {
	s.view = newProgressView(ios, s.cfg.NoColor || ios.env("NO_COLOR") != "", quiet, s.start)
	s.mcpNotices().view.Store(s.view)
	s.warn = func(msg string) {
		if !s.view.warning(msg) {
			printWarnings(ios, []string{msg})
		}
	}
	if s.gate, err = s.newGate(gateIOS); err != nil {
		return err
	}
	hc, err := s.cas.httpClient()
	if err != nil {
		return err
	}
	s.model = llm.New(llm.Options{
		BaseURL: s.cfg.BaseURL, APIKey: s.cfg.APIKey, KeySource: s.cfg.APIKeySource, Stream: s.cfg.Stream,
		Timeouts: llmTimeouts(s.cfg.LLM), OnRetry: s.view.retry, HTTPClient: hc,
		OnFallback: func(f llm.Fallback) { s.warn(fallbackWarning(f)) },
	})
	var warns []string
	s.reasoningEffort, warns = llm.ReasoningEffort(s.cfg.Model, s.cfg.Thinking, s.cfg.ReasoningEffort)
	printWarnings(ios, warns)
	return nil
}

// llmTimeouts maps the config's timeouts, where 0 means no limit, to the
// client's, where a negative value does.
func llmTimeouts(c config.LLM) llm.Timeouts {
	limit := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1
		}
		return d
	}
	return llm.Timeouts{
		Connect: limit(c.ConnectTimeout), FirstByte: limit(c.FirstByteTimeout),
		Idle: limit(c.IdleTimeout), Request: limit(c.RequestTimeout),
	}
}

// openEvents opens the JSONL sink (a setup error if it cannot), the stdout
// sink of stream-json, and the emitter.
func (s *runState) openEvents(ctx context.Context, ios *IOStreams, o runOptions) error {
	var sinks []events.Sink
	if o.eventsPath != "" {
		sink, err := events.OpenJSONL(ctx, o.eventsPath)
		if err != nil {
			return asSetup(err)
		}
		s.sink = sink
		sinks = append(sinks, eventsOnly{sink})
	}
	if o.output == outputStreamJSON {
		s.stream = stdoutSink(ios)
		sinks = append(sinks, streamSink{s.stream})
	}
	for i := range sinks {
		sinks[i] = wrapEventSink(sinks[i])
	}
	s.emitter = events.NewEmitter(events.Options{
		RunID: s.runID, Sinks: sinks, Now: ios.Now, Redact: redact.String, Buffer: eventBuffer,
		OnSinkError: func(err error) {
			fmt.Fprintf(ios.ErrOut, "odek: events-jsonl write failed: %v\n", termText(err.Error()))
		},
		OnDrop: func(n int64) { fmt.Fprintf(ios.ErrOut, "odek: warning: %s\n", dropWarning(n)) },
	})
	return nil
}

// Test hooks: the emitter's buffer (0 = events.DefaultBuffer) and a wrapper
// around every sink (a slow one, in tests).
var (
	eventBuffer   int
	wrapEventSink = func(s events.Sink) events.Sink { return s }
)

// dropWarning is the one warning a run gives when events are lost.
func dropWarning(n int64) string {
	return fmt.Sprintf("events: %d event(s) dropped so far: the event sinks cannot keep up (the final events are still delivered); the run report counts every one as events_dropped", n)
}

// startBudget builds the tracker and makes the runtime budget a hard deadline
// on the run's context, whose cause is the budget error; overrun ends the
// context with a charged-back budget error.
// A cost cap the prices cannot enforce never gets here: the config refuses
// it (RequireEnforceableBudget).
func (s *runState) startBudget(ctx context.Context, ios *IOStreams) (runCtx context.Context) {
	prices := budget.ResolvePrices(s.cfg.Model, s.cfg.Prices, s.cfg.ModelPrices)
	s.tracker = budget.New(budget.Options{Limits: s.cfg.Limits, Prices: prices, Start: s.start, Now: ios.Now})
	// A sub-agent's charge-back past a limit stops the run at once, with
	// the budget error as the cause (exit 4).
	ctx, s.overrun = context.WithCancelCause(ctx)
	if dl, ok := s.tracker.Deadline(); ok {
		runCtx, s.cancel = context.WithDeadlineCause(ctx, dl, s.tracker.RuntimeError(dl))
	} else {
		runCtx, s.cancel = context.WithCancel(ctx)
	}
	// The first departure from a replayed cassette stops the run.
	stop := s.cancel
	runCtx, s.depart = context.WithCancelCause(runCtx)
	s.cancel = func() { s.depart(nil); stop() }
	return runCtx
}

func (s *runState) loopOptions(o runOptions) loop.Options {
	lo := loop.Options{
		Model: s.model, ModelName: s.cfg.Model, Tools: s.tools, System: s.schema.system(s.systemPrompt()),
		StartedData:   startedData(s.servers),
		MaxIterations: s.cfg.MaxIterations, MaxToolParallel: s.cfg.MaxToolParallel,
		Budget: s.tracker, Events: s.emitter, IncludeArgs: o.eventsIncludeArgs, Gate: s.gate,
		Progress: s.view.update, ReasoningEffort: s.reasoningEffort, OnUntrusted: s.taint,
		Sandbox: s.sandbox.info,
	}
	s.schema.apply(&lo)
	return lo
}

// mcpNotices returns the run's MCP notice sink, made on first use.
func (s *runState) mcpNotices() *mcpNotices {
	if s.notices == nil {
		s.notices = &mcpNotices{em: s.emitter}
	}
	return s.notices
}

// startedData is what run_started says beyond the loop's own fields.
func startedData(set *mcpclient.Set) map[string]any {
	if servers := mcpServersData(set); servers != nil {
		return map[string]any{"mcp_servers": servers}
	}
	return nil
}

// taint records that the model has seen untrusted content; it is the
// loop's OnUntrusted.
func (s *runState) taint() { s.tainted.Store(true) }

func (s *runState) stopProgress() { s.view.stop() }

// closeEvents drains the emitter, for at most two seconds: a stuck disk or
// reader must not hang the exit. Idempotent.
func (s *runState) closeEvents() {
	if s.emitter != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = s.emitter.Close(ctx)
		cancel()
	}
}

// close releases everything in reverse order of setup. The emitter drains
// for at most two seconds: a stuck disk must not hang the exit.
func (s *runState) close(runCtx context.Context) {
	if s == nil {
		return
	}
	s.closeServers(runCtx)
	if s.cas != nil && s.cas.rec != nil {
		_ = s.cas.rec.Close()
	}
	s.closeEvents()
	if s.sink != nil {
		_ = s.sink.Close()
	}
	if s.cfg != nil && s.store != nil {
		maxAge := time.Duration(s.cfg.ArtifactsMaxAgeHours) * time.Hour
		sweepArtifacts(s.cfg.Home, maxAge, time.Now(), s.runID)
	}
	s.closeSandbox()
	if s.cancel != nil {
		s.cancel()
	}
	if s.overrun != nil {
		s.overrun(nil)
	}
}

// closeServers shuts the MCP servers down: gracefully after a normal run;
// after an interrupt at once (about half a second, even for a server that
// ignores its stdin closing and SIGTERM), saying which were stopped, so the
// prompt is back within a second.
func (s *runState) closeServers(runCtx context.Context) {
	if s.servers == nil {
		return
	}
	if runCtx == nil || !errors.Is(runCtx.Err(), context.Canceled) || budget.IsBudget(context.Cause(runCtx)) || s.cas.departed() {
		_ = s.servers.Close()
		return
	}
	var names []string
	for _, c := range s.servers.Clients() {
		names = append(names, c.Name())
	}
	_ = s.servers.CloseNow()
	reportStopped(s.errOut, names)
}

package agentrun

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/untrusted"
)

// Home is $ODEK_HOME, else ~/.odek. Its error is a setup error.
func Home(ios *iostreams.IOStreams) (string, error) {
	if h := ios.Env("ODEK_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		return abs, errclass.Wrap(errclass.SetupError, err)
	}
	home := ios.Env("HOME")
	if home == "" {
		return "", errclass.Wrap(errclass.SetupError, fmt.Errorf("cannot find the odek home: set ODEK_HOME or HOME"))
	}
	return filepath.Join(home, ".odek"), nil
}

// LoadConfig resolves the layered config and prints its warnings.
func LoadConfig(ios *iostreams.IOStreams, flags config.Overrides) (*config.Config, error) {
	home, err := Home(ios)
	if err != nil {
		return nil, err
	}
	wd, err := ios.Getwd()
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, err)
	}
	cfg, warnings, err := config.Load(config.LoadOptions{Home: home, Dir: wd, LookupEnv: ios.LookupEnv, Flags: flags})
	runview.PrintWarnings(ios, warnings)
	if err != nil {
		return nil, err
	}
	redact.Register(cfg.SecretValues()...)
	return cfg, nil
}

// Setup builds the run o asks for, part by part, in one order: the
// run's identity and place; a sub-agent's task, handed key and overrides;
// the config; (odek tools stops after its tools) the cassette and the
// checks no run starts without; a sub-agent's policy; the output schema;
// the event sinks; the budget and the run's context; the workspace, its
// sandbox, the MCP servers and the tools; the progress view, the risk
// gate and the model client. On error, whatever was started is released
// and the partial run is returned for FailSetup. runCtx is the run's
// context (ctx itself for odek tools; nil when setup failed before it).
func Setup(ctx context.Context, o Options) (runCtx context.Context, r *Run, err error) {
	ios := o.IO
	r = &Run{o: o, limits: &runLimits{}}
	if o.ToolsOnly {
		// No run id (nothing to sweep), no events, no budget, and a
		// store never written.
		r.conf, runCtx = &runConf{flags: o.Overrides, now: ios.Now}, ctx
	} else {
		r.conf = newRunConf(ios)
	}
	if o.Child != nil {
		r.child = &child{o: o.Child, r: r}
	}
	defer func() {
		if err != nil {
			r.endAgentSpan(ctx, nil, err)
			r.close(runCtx)
		}
	}()
	cfgIOS, over := ios, o.Overrides
	if r.child != nil {
		if cfgIOS, over, err = r.child.readTask(ios, over); err != nil {
			return runCtx, r, err
		}
	} else {
		r.conf.flags, r.conf.fullAuto = o.Overrides, o.FullAuto
	}
	if r.conf.cfg, err = LoadConfig(cfgIOS, over); err != nil {
		return runCtx, r, err
	}
	if r.conf.cfg.InteractionMode == runview.ModeOff {
		o.Quiet, r.o.Quiet = true, true // interaction_mode off is --quiet
	}
	o.acp.applyConfig(r.conf.cfg)
	if o.ToolsOnly {
		r.sinks = &runSinks{notices: runview.NewNotices(nil)}
		r.tools = &toolset{store: artifact.NewStore("")}
		return runCtx, r, r.buildTools(ctx, ios, ios.ErrOut)
	}
	if !o.PrintSystem { // showing the prompt runs nothing worth a trace
		r.startTelemetry(ios)
	}
	r.discoverAgents(ios, r.child != nil)
	if r.cas, err = openRunCassette(ios, o.Cassette, r.conf.cfg.Home, o.Version, r.cassetteAgents(), r.limits.departed); err != nil {
		return runCtx, r, err
	}
	if err = r.checkReplayAgents(); err != nil {
		return runCtx, r, err
	}
	if err = checkRunnable(r.conf.cfg, r.cas.replaying()); err != nil && !o.PrintSystem { // showing the prompt calls no model
		return runCtx, r, err
	}
	toolsIOS, gateIOS := ios, ios
	if r.child != nil {
		if err = r.child.applyPolicy(ios); err != nil {
			return runCtx, r, err
		}
		// Nobody to ask, whatever its file descriptors are.
		toolsIOS, gateIOS = noTerminal(cfgIOS), noTerminal(ios)
	}
	// Before anything starts: a bad schema must not cost a server or a call.
	if r.schema, err = r.loadSchema(); err != nil {
		return runCtx, r, err
	}
	if err = r.approveHooks(ctx, toolsIOS, r.child != nil); err != nil { // nor an unapproved project hook
		return runCtx, r, err
	}
	if r.child != nil {
		r.sinks = r.child.openEvents(ios)
	} else if r.sinks, err = openSinks(ctx, ios, r.conf.runID, o.EventsPath, o.Output, o.acp.sinks()...); err != nil {
		return runCtx, r, err
	}
	runCtx = r.startAgentSpan(r.limits.start(ctx, r.conf))
	r.tools = newToolset(r.conf, r.sinks)
	if err = r.buildTools(runCtx, toolsIOS, serverLog(ios, o.Quiet)); err != nil {
		return runCtx, r, err
	}
	if err = r.startModel(ios, gateIOS, o.Quiet); err != nil {
		return runCtx, r, err
	}
	return runCtx, r, r.startHooks(toolsIOS)
}

// loadSchema is the run's output schema: a sub-agent's flag or task file,
// else the config's output_schema.
func (r *Run) loadSchema() (*outputSchema, error) {
	if r.child != nil {
		return childSchema(r.child.o.OutputSchema, r.child.task, r.conf.cfg)
	}
	return loadOutputSchema(r.conf.cfg)
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
func serverLog(ios *iostreams.IOStreams, quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return ios.ErrOut
}

// startModel builds, once the tools are there, the progress view and the
// warnings above it, the risk gate (asking on gateIOS) and the model client
// with its reasoning effort.
func (r *Run) startModel(ios, gateIOS *iostreams.IOStreams, quiet bool) (err error) {
	cfg := r.conf.cfg
	r.sinks.startView(ios, cfg.NoColor, quiet, r.conf.start)
	if r.tools.gate, err = newGate(gateIOS, r.gateOptions()); err != nil {
		return err
	}
	hc, err := r.cas.httpClient()
	if err != nil {
		return err
	}
	view := r.sinks.view
	client := llm.New(llm.Options{
		BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, KeySource: cfg.APIKeySource, Stream: cfg.Stream,
		WireAPI: cfg.LLM.WireAPI, PromptCacheKey: r.promptCacheKey(),
		Timeouts: llmTimeouts(cfg.LLM), OnRetry: view.Retry, HTTPClient: hc,
		OnFallback: func(f llm.Fallback) { r.sinks.warn(runview.FallbackWarning(f)) },
		Sleep:      r.cas.retryWait(), Telemetry: r.tel,
	})
	r.model.client = client
	if len(cfg.LLM.FallbackModels) > 0 {
		r.model.chain = llm.NewChain(client, append([]string{cfg.Model}, cfg.LLM.FallbackModels...), r.modelSwitched)
		r.model.client = r.model.chain
	}
	var warns []string
	r.model.effort, warns = llm.ReasoningEffort(cfg.Model, cfg.Thinking, cfg.ReasoningEffort, cfg.ThinkingBudget)
	runview.PrintWarnings(ios, warns)
	return nil
}

// modelSwitched tells the operator (on stderr, with --quiet too) and the
// event stream that the run moved to a fallback model.
func (r *Run) modelSwitched(sw llm.ModelSwitch) {
	msg := redact.String(sw.Err.Error())
	r.sinks.warn(runview.ModelFallbackWarning(sw.From, sw.To, msg))
	r.sinks.emitter.Emit(events.ModelFallback, 0, "", map[string]any{"from": sw.From, "to": sw.To, "error": untrusted.OneLine(msg, 300)})
}

// promptCacheKey is the key the client sends so the provider keeps the
// run's requests on one prompt cache (llm.Options.PromptCacheKey): the
// session's id when the run carries one on, so its requests reach the
// cache its earlier runs filled, or the id --session-id gives a new one;
// else the run's id; none with prompt_caching false. It is the same in
// every request of the run, and so keeps their common prefix cacheable.
// The session is attached only when the run starts, after the client is
// built: the options name it.
func (r *Run) promptCacheKey() string {
	switch {
	case !r.conf.cfg.PromptCaching:
		return ""
	case r.o.Resume != nil:
		return r.o.Resume.ID
	case r.o.SessionID != "":
		return r.o.SessionID
	}
	return r.conf.runID
}

// gateOptions are what the risk gate is built from: the policy settings,
// the workspace, what the sandbox contains, a parent's policy, and where
// denials go.
func (r *Run) gateOptions() gateOptions {
	return gateOptions{
		dangerous: r.conf.cfg.Dangerous, defaulted: r.conf.cfg.DefaultedClasses(),
		dir: r.tools.workDir, contained: r.tools.sandbox.contained(),
		parent: r.conf.place.parentPolicy, denied: &r.tools.denied, view: r.sinks.view, warn: r.sinks.warn,
		notify: r.notify, asker: r.o.acp.gateAsker(), tel: r.tel,
	}
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

func (r *Run) loopOptions() loop.Options {
	cfg := r.conf.cfg
	lo := loop.Options{
		Model: r.model.client, ModelName: cfg.Model, Tools: r.tools.reg, System: r.schema.system(r.systemPrompt()),
		StartedData:   r.startedData(),
		MaxIterations: cfg.MaxIterations, MaxToolParallel: cfg.MaxToolParallel,
		Budget: r.limits.tracker, Events: r.sinks.emitter, IncludeArgs: r.o.EventsIncludeArgs, Gate: r.tools.gate,
		Progress: r.sinks.view.Update, ReasoningEffort: r.model.effort, OnUntrusted: r.taint,
		Sandbox: r.tools.sandbox.info, Telemetry: r.tel,
	}
	r.hookOptions(&lo)
	if r.o.Resume != nil {
		lo.SessionSource = "resume"
	}
	r.schema.apply(&lo)
	return lo
}

// startedData is what run_started says beyond the loop's own fields: the
// MCP servers and the AGENTS.md files read.
func (r *Run) startedData() map[string]any {
	d := map[string]any{}
	if servers := mcpServersData(r.servers.set); servers != nil {
		d["mcp_servers"] = servers
	}
	if files := r.agentsFiles(); files != nil {
		d["agents_files"] = files
	}
	if p := r.conf.cfg.ProjectFile; p != "" {
		d["project_file"] = p
	}
	if s := r.o.Resume; s != nil && s.Parent != "" {
		d["parent_session_id"] = s.Parent // a fork; session_id is every event's
	}
	if len(d) == 0 {
		return nil
	}
	return d
}

// taint records that the model has seen untrusted content; it is the
// loop's OnUntrusted.
func (r *Run) taint() { r.tainted.Store(true) }

// close releases the parts in reverse order of setup; ctx is the run's
// context (nil when setup failed before it). A run (not odek tools) sweeps
// the artifacts older than artifacts_max_age_hours on its way out.
func (r *Run) close(ctx context.Context) {
	if r == nil {
		return
	}
	r.closeHooks()
	r.servers.close(ctx, r.cas.departed())
	r.stopTelemetry(ctx) // after the servers: their last requests are traced
	if r.cas != nil && r.cas.rec != nil {
		_ = r.cas.rec.Close()
	}
	if r.sinks != nil {
		r.sinks.close()
	}
	if cfg := r.conf.cfg; cfg != nil && r.tools != nil && r.conf.runID != "" {
		maxAge := time.Duration(cfg.ArtifactsMaxAgeHours) * time.Hour
		SweepArtifacts(cfg.Home, maxAge, r.conf.now(), r.conf.runID)
	}
	if r.tools != nil {
		r.tools.sandbox.close()
	}
	r.limits.stop()
}

package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/runview"
)

// agentRun is one run assembled from its typed parts; each command
// (run and continue in setUpRun, subagent in setUpChild, odek tools)
// builds the parts it needs explicitly, and close releases them. No part
// holds the run's context: setup returns it.
type agentRun struct {
	conf    *runConf
	limits  *runLimits
	sinks   *runSinks
	servers *runServers
	tools   *toolset
	model   runModel
	session *runSession    // nil without run --session or continue
	schema  *outputSchema  // nil without --output-schema
	cas     *cassetteState // --record or --replay; nil without
	hooks   *runHooks      // lifecycle hooks; nil before approveHooks
	// tainted: the model has seen untrusted content (the loop's
	// OnUntrusted, or a continued session that lost messages), so
	// delegate_tasks passes parent_trust untrusted (docs/SUBAGENTS.md).
	tainted atomic.Bool
}

// odekHome is $ODEK_HOME, else ~/.odek. Its error is a setup error.
func odekHome(ios *iostreams.IOStreams) (string, error) {
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

// loadConfig resolves the layered config and prints its warnings.
func loadConfig(ios *iostreams.IOStreams, flags config.Overrides) (*config.Config, error) {
	home, err := odekHome(ios)
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

// setUpRun builds the run of odek run and continue, part by part. On
// error, whatever was started is released and the partial run is returned
// for the setup report.
func setUpRun(ctx context.Context, ios *iostreams.IOStreams, o runOptions) (runCtx context.Context, r *agentRun, err error) {
	r = &agentRun{conf: newRunConf(ios), limits: &runLimits{}}
	defer func() {
		if err != nil {
			r.close(runCtx)
		}
	}()
	r.conf.flags, r.conf.fullAuto = o.overrides, o.fullAuto
	if r.conf.cfg, err = loadConfig(ios, o.overrides); err != nil {
		return runCtx, r, err
	}
	if r.cas, err = openRunCassette(ios, o.cassette, r.conf.cfg.Home, r.limits.departed); err != nil {
		return runCtx, r, err
	}
	if err = checkRunnable(r.conf.cfg, r.cas.replaying()); err != nil && !o.printSystem { // showing the prompt calls no model
		return runCtx, r, err
	}
	// Before anything starts: a bad schema must not cost a server or a call.
	if r.schema, err = loadOutputSchema(r.conf.cfg); err != nil {
		return runCtx, r, err
	}
	if err = r.approveHooks(ctx, ios, false); err != nil { // nor an unapproved project hook
		return runCtx, r, err
	}
	if r.sinks, err = openSinks(ctx, ios, r.conf.runID, o.eventsPath, o.output); err != nil {
		return runCtx, r, err
	}
	runCtx = r.limits.start(ctx, r.conf)
	r.tools = newToolset(r.conf, r.sinks)
	if err = r.buildTools(runCtx, ios, serverLog(ios, o.quiet)); err != nil {
		return runCtx, r, err
	}
	if err = r.startModel(ios, ios, o.quiet); err != nil {
		return runCtx, r, err
	}
	return runCtx, r, r.startHooks(ios)
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
func (r *agentRun) startModel(ios, gateIOS *iostreams.IOStreams, quiet bool) (err error) {
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
	r.model.client = llm.New(llm.Options{
		BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, KeySource: cfg.APIKeySource, Stream: cfg.Stream,
		WireAPI: cfg.LLM.WireAPI, PromptCacheKey: r.promptCacheKey(),
		Timeouts: llmTimeouts(cfg.LLM), OnRetry: view.Retry, HTTPClient: hc,
		OnFallback: func(f llm.Fallback) { r.sinks.warn(runview.FallbackWarning(f)) },
		Sleep:      r.cas.retryWait(),
	})
	var warns []string
	r.model.effort, warns = llm.ReasoningEffort(cfg.Model, cfg.Thinking, cfg.ReasoningEffort)
	runview.PrintWarnings(ios, warns)
	return nil
}

// promptCacheKey is the Responses wire's prompt_cache_key: the session's id
// when the run continues one, so a continued session's requests reach the
// cache its earlier runs filled, else the run's id.
func (r *agentRun) promptCacheKey() string {
	if r.session != nil && r.session.sess != nil {
		return r.session.sess.ID
	}
	return r.conf.runID
}

// gateOptions are what the risk gate is built from: the policy settings,
// the workspace, what the sandbox contains, a parent's policy, and where
// denials go.
func (r *agentRun) gateOptions() gateOptions {
	return gateOptions{
		dangerous: r.conf.cfg.Dangerous, defaulted: r.conf.cfg.DefaultedClasses(),
		dir: r.tools.workDir, contained: r.tools.sandbox.contained(),
		parent: r.conf.place.parentPolicy, denied: &r.tools.denied, view: r.sinks.view, warn: r.sinks.warn,
		notify: r.notify,
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

func (r *agentRun) loopOptions(o runOptions) loop.Options {
	cfg := r.conf.cfg
	lo := loop.Options{
		Model: r.model.client, ModelName: cfg.Model, Tools: r.tools.reg, System: r.schema.system(r.systemPrompt()),
		StartedData:   startedData(r.servers.set),
		MaxIterations: cfg.MaxIterations, MaxToolParallel: cfg.MaxToolParallel,
		Budget: r.limits.tracker, Events: r.sinks.emitter, IncludeArgs: o.eventsIncludeArgs, Gate: r.tools.gate,
		Progress: r.sinks.view.Update, ReasoningEffort: r.model.effort, OnUntrusted: r.taint,
		Sandbox: r.tools.sandbox.info,
	}
	r.hookOptions(&lo)
	if o.resume != nil {
		lo.SessionSource = "resume"
	}
	r.schema.apply(&lo)
	return lo
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
func (r *agentRun) taint() { r.tainted.Store(true) }

// close releases the parts in reverse order of setup; ctx is the run's
// context (nil when setup failed before it). A run (not odek tools) sweeps
// the artifacts older than artifacts_max_age_hours on its way out.
func (r *agentRun) close(ctx context.Context) {
	if r == nil {
		return
	}
	r.closeHooks()
	r.servers.close(ctx, r.cas.departed())
	if r.cas != nil && r.cas.rec != nil {
		_ = r.cas.rec.Close()
	}
	if r.sinks != nil {
		r.sinks.close()
	}
	if cfg := r.conf.cfg; cfg != nil && r.tools != nil && r.conf.runID != "" {
		maxAge := time.Duration(cfg.ArtifactsMaxAgeHours) * time.Hour
		sweepArtifacts(cfg.Home, maxAge, r.conf.now(), r.conf.runID)
	}
	if r.tools != nil {
		r.tools.sandbox.close()
	}
	r.limits.stop()
}

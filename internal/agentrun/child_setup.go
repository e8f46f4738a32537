package agentrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/childkey"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/subagent"
	"github.com/odek-run/odek/internal/subagent/childside"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// child is one `odek subagent` run: a run whose task, trust, limits and
// output come from its parent.
type child struct {
	r       *Run
	o       *Child
	task    *wire.Task
	out     *childside.LineWriter
	wd      string
	timeout time.Duration
	soft    time.Duration
	maxIter int
	sc      *subagentConfig
	ended   *wire.Result // how the run ended, for Close to print; nil until Execute ends
}

// readTask reads the task (--task, or --goal), opens the line writer its
// protocol asks for, takes the API key a parent handed over and adds the
// task file's settings to flags: the streams and overrides the config is
// loaded with. Every error is a setup error.
func (c *child) readTask(ios *iostreams.IOStreams, flags config.Overrides) (*iostreams.IOStreams, config.Overrides, error) {
	var err error
	if c.task, err = loadTask(c.o); err != nil {
		return nil, flags, errclass.Wrap(errclass.SetupError, err)
	}
	c.out = childside.NewLineWriter(ios.Out, c.task.TaskID, c.o.Stream && c.task.EffectiveProtocol() == wire.Protocol)
	c.out.Version = c.r.o.Version
	cios, err := withHandedKey(ios, c.o.KeyFile)
	if err != nil {
		return nil, flags, errclass.Wrap(errclass.SetupError, err)
	}
	over, err := childOverrides(c.task, flags)
	if err != nil {
		return nil, flags, errclass.Wrap(errclass.SetupError, err)
	}
	return cios, over, nil
}

// loadTask reads --task strictly, or builds the task of --goal.
func loadTask(o *Child) (*wire.Task, error) {
	if o.TaskFile == "" {
		t := &wire.Task{Protocol: wire.Protocol, Goal: o.Goal, Context: o.Context, ParentSession: o.ParentSession}
		return t, t.Validate()
	}
	f, err := os.Open(o.TaskFile)
	if err != nil {
		return nil, fmt.Errorf("task file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, wire.MaxTaskFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("task file: %w", err)
	}
	return wire.ParseTask(data)
}

// withHandedKey makes the API key the parent handed over (taken on fd 3 by
// childkey's init, before anything else ran, or read from keyFile, a
// mounted Secret) the ODEK_API_KEY of this process's config, without
// putting it into any environment: what this child starts gets its own
// handover, or nothing.
func withHandedKey(ios *iostreams.IOStreams, keyFile string) (*iostreams.IOStreams, error) {
	key, handed, err := childkey.Key()
	switch {
	case handed && keyFile != "":
		return nil, errors.New("--key-file and a key handed over on descriptor 3: give one")
	case keyFile != "":
		key, err = readKeyFile(keyFile)
	case !handed:
		return ios, nil
	}
	if err != nil {
		return nil, err
	}
	redact.Register(key)
	cios := *ios
	cios.LookupEnv = func(name string) (string, bool) {
		switch name {
		case "ODEK_API_KEY":
			return key, true
		case wire.EnvAPIKeyFD:
			return "", false
		}
		return ios.LookupEnv(name)
	}
	return &cios, nil
}

// childOverrides carries the parent's model and endpoint and its LLM
// settings, which the parent resolved from its own flags and config; the
// task file names them like flags would. The command line's own -c (and
// --timeout, --max-iter) come first; a -c model or base_url given there
// wins over the task file's.
func childOverrides(t *wire.Task, flags config.Overrides) (config.Overrides, error) {
	o := flags
	if t.Model != "" && !flags.Has("model") {
		if err := o.Set("model", t.Model, "task file model"); err != nil {
			return o, fmt.Errorf("task file: model: %w", err)
		}
	}
	if t.BaseURL != "" && !flags.Has("base_url") {
		if err := o.Set("base_url", t.BaseURL, "task file base_url"); err != nil {
			return o, fmt.Errorf("task file: base_url: %w", err)
		}
	}
	return o, applyLLMSettings(&o, t.LLM)
}

// applyPolicy settles what the child may do: timeout and iterations (flag,
// else subagent.*, capped), the profile (flag > task file > default; an
// unknown one is a setup error), trust (never above the parent's: an
// untrusted child gets no MCP servers), the tools and policy (never wider
// than the parent's), and the budget (the lower of the operator's limits
// and the child's share of the parent's remaining; an exhausted dimension
// is a budget error before the first model call).
func (c *child) applyPolicy(ios *iostreams.IOStreams) (err error) {
	if c.wd, err = ios.Getwd(); err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	cfg, place := c.r.conf.cfg, &c.r.conf.place
	sc := readSubagentConfig(cfg)
	c.sc = sc
	// --timeout and --max-iter reached the config as settings: parsed,
	// bounded and clamped by the table, as run's flags are.
	secs := min(sc.Settings.TimeoutSeconds, subagent.MaxTimeoutSeconds)
	c.maxIter = min(sc.Settings.MaxIterations, subagent.MaxIterations)
	softMS, hardMS := Seams.SoftDeadline(secs)
	c.timeout, c.soft = time.Duration(hardMS)*time.Millisecond, time.Duration(softMS)*time.Millisecond
	profName, prof, err := sc.resolveProfile(c.o.Profile, c.task.Profile)
	if err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	place.agentID, place.agentType = c.task.TaskID, profName
	if place.agentType == "" {
		place.agentType = "default"
	}
	if prof != nil && len(prof.Tools) > 0 {
		cfg.ToolsEnabled = prof.Tools
	}
	place.parentSession = c.task.ParentSession
	if c.o.ParentSession != "" {
		place.parentSession = c.o.ParentSession
	}
	place.trust = c.task.Trust()
	place.sandboxLimit = sandboxLimitOf(c.task.Sandbox) // its commands' sandbox is never wider than the parent's
	if c.o.KeyFile != "" {
		// The key's file (a pod's mounted Secret) is as far out of the
		// commands' reach as a key handed over on a descriptor.
		if abs, err := filepath.Abs(c.o.KeyFile); err == nil {
			cfg.Sandbox.Protected = append(cfg.Sandbox.Protected, abs)
		}
	}
	place.noMCP = place.trust != wire.Trusted
	cfg.Dangerous = childDangerous(cfg.Dangerous, place.trust == wire.Trusted, c.task.MaxRisk, prof)
	c.narrowToParent()
	place.parentPolicy = c.task.ParentPolicy
	cfg.System = "" // --system and ODEK_SYSTEM never apply to a sub-agent
	limits, err := childside.Limits(cfg.Limits, c.task.Budget)
	if err != nil {
		return err
	}
	cfg.Limits = limits
	if b := c.task.Budget; b != nil && b.MaxCostUSD > 0 && b.InputCostPerMillionUSD > 0 && b.OutputCostPerMillionUSD > 0 {
		// The parent priced the share: the child prices its use the same.
		cfg.Prices = budget.Prices{InputPerMillionUSD: b.InputCostPerMillionUSD, OutputPerMillionUSD: b.OutputCostPerMillionUSD}
		cfg.ModelPrices = nil
	}
	return nil
}

// noTerminal is ios as a sub-agent must see it: nobody to ask, whatever its
// file descriptors are.
func noTerminal(ios *iostreams.IOStreams) *iostreams.IOStreams {
	c := *ios
	c.StdinTTY, c.StderrTTY = false, false
	return &c
}

// openEvents builds the child's sinks: its events carry its parent's
// run id and its task id and, when the parent asked, are relayed as stream
// lines.
func (c *child) openEvents(ios *iostreams.IOStreams) *runSinks {
	k := &runSinks{}
	var sinks []events.Sink
	if c.task.Events && c.out.Streaming() {
		sinks = append(sinks, c.out)
		k.relay = true
	}
	k.emitter = events.NewEmitter(events.Options{
		RunID: c.r.conf.runID, ParentRunID: c.task.ParentRunID, TaskID: c.task.TaskID,
		Sinks: sinks, Now: ios.Now, Redact: redact.String,
	})
	k.notices = runview.NewNotices(k.emitter)
	return k
}

// failSetup prints the setup failure as the result: budget_exhausted (exit
// 4) for an exhausted shared budget, else error (exit 3).
func (c *child) failSetup(ios *iostreams.IOStreams, err error) error {
	// Nothing was spent before the first model call: the zero usage tells
	// the parent so (a result without usage is charged its reservation).
	r := &wire.Result{Status: wire.StatusError, Error: redact.String(err.Error()), Usage: &wire.Usage{}}
	if budget.IsBudget(err) {
		r.Status, r.PartialReason = wire.StatusBudgetExhausted, wire.ReasonExecution
	}
	if c != nil && c.out != nil {
		c.out.Result(r)
	} else {
		runview.WriteChildResult(ios, r)
	}
	if budget.IsBudget(err) {
		return err
	}
	return errclass.Wrap(errclass.SetupError, err)
}

// readKeyFile reads --key-file: one key of at most wire.MaxKeyBytes,
// without its line end.
func readKeyFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("--key-file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, wire.MaxKeyBytes+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("--key-file: %w", err)
	case len(b) > wire.MaxKeyBytes:
		return "", fmt.Errorf("--key-file: the key is longer than %d bytes", wire.MaxKeyBytes)
	}
	key := strings.TrimRight(string(b), "\r\n")
	if key == "" {
		return "", errors.New("--key-file: the file is empty")
	}
	return key, nil
}

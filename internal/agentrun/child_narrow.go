package agentrun

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/subagent/childside"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// The narrowing of a child by its parent's run (issue 18): the task file
// carries the parent's effective tool set and risk policy and its resolved
// LLM settings (issue 26); the child intersects the first two with its own
// and takes the settings as flags.

// offeredNames are the tools this run offers its model (none before the
// registry is built).
func (ts *toolset) offeredNames() []string {
	if ts.reg == nil {
		return []string{}
	}
	specs := ts.reg.Specs()
	names := make([]string, len(specs))
	for i, sp := range specs {
		names[i] = sp.Name
	}
	return names
}

// parentPolicy is this run's effective risk policy, as a child must honour
// it.
func parentPolicy(d config.Dangerous) *wire.Policy {
	return &wire.Policy{
		Classes: d.Classes, Allowlist: slices.Clone(d.Allowlist), Denylist: slices.Clone(d.Denylist),
	}
}

// llmSettings are this run's resolved LLM settings, as flag text: what a
// child needs to talk to the endpoint the way its parent does.
func llmSettings(cfg *config.Config) map[string]string {
	secs := func(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }
	m := map[string]string{
		"stream":                         strconv.FormatBool(cfg.Stream),
		"llm.connect_timeout_seconds":    secs(cfg.LLM.ConnectTimeout),
		"llm.first_byte_timeout_seconds": secs(cfg.LLM.FirstByteTimeout),
		"llm.idle_timeout_seconds":       secs(cfg.LLM.IdleTimeout),
		"llm.request_timeout_seconds":    secs(cfg.LLM.RequestTimeout),
		"llm.response_format":            strconv.FormatBool(cfg.LLM.ResponseFormat),
		"llm.wire_api":                   cfg.LLM.WireAPI,
		"compaction":                     strconv.FormatBool(cfg.Compaction),
		"prompt_caching":                 strconv.FormatBool(cfg.PromptCaching),
	}
	if cfg.Thinking != "" {
		m["thinking"] = cfg.Thinking
	}
	if cfg.ReasoningEffort != "" {
		m["reasoning_effort"] = cfg.ReasoningEffort
	}
	if cfg.ThinkingBudget > 0 {
		m["thinking_budget"] = strconv.Itoa(cfg.ThinkingBudget)
	}
	if n := contextWindow(cfg); n > 0 {
		m["context_window"] = strconv.Itoa(n)
	}
	if len(cfg.LLM.FallbackModels) > 0 {
		m["llm.fallback_models"] = strings.Join(cfg.LLM.FallbackModels, ",") // a flag's text: comma-separated
	}
	return m
}

// applyLLMSettings records the task file's llm settings as flags would be.
func applyLLMSettings(o *config.Overrides, m map[string]string) error {
	for _, key := range wire.LLMSettingKeys {
		v, ok := m[key]
		if !ok {
			continue
		}
		if err := o.Set(key, v, "task file llm."+key); err != nil {
			return fmt.Errorf("task file: llm.%s: %w", key, err)
		}
	}
	return nil
}

// narrowToParent applies the parent's tool set and policy to the child's
// config: only tools both offer, every class at least as strict as the
// parent's (a parent's "prompt" is a child's deny: it never asks), the
// parent's denylist added. The parent's gate (below) makes its denials
// final even against the child's allowlist.
func (c *child) narrowToParent() {
	cfg := c.r.conf.cfg
	cfg.ToolsEnabled = childside.IntersectTools(cfg.ToolsEnabled, c.task.ParentTools)
	p := c.task.ParentPolicy
	if p == nil {
		return
	}
	cfg.Dangerous.Classes = childside.StricterClasses(cfg.Dangerous.Classes, p)
	for _, d := range p.Denylist {
		if !slices.Contains(cfg.Dangerous.Denylist, d) {
			cfg.Dangerous.Denylist = append(cfg.Dangerous.Denylist, d)
		}
	}
}

// parentGate is the parent's policy as a second gate of the child: what it
// denies (a class, the denylist) is denied whatever the child's own
// allowlist says; what it would ask about is left to the child's policy.
// Nil without a parent policy. dir is the workspace; warn says what was
// denied.
func parentGate(p *wire.Policy, dir string, warn func(string)) (loop.Gate, error) {
	if p == nil {
		return nil, nil
	}
	pol, err := policy.New(policy.Options{
		Config: policy.Config{Action: "allow", NonInteractive: "allow", Classes: p.Classes, Allowlist: p.Allowlist, Denylist: p.Denylist},
		Dir:    dir,
		OnDeny: func(oc policy.Outcome) {
			e := policy.DeniedError{Tool: oc.Call.Tool, What: oc.Call.Risk.What, Class: oc.Class}
			warn(strings.TrimPrefix(e.Error(), "operation ") + ": the parent's policy: " + oc.Why)
		},
	})
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, fmt.Errorf("task file: parent_policy: %w", err))
	}
	return policyGate{pol}, nil
}

// bothGates lets a call through only when every gate does.
type bothGates []loop.Gate

func (g bothGates) Check(ctx context.Context, c loop.GateCall) error {
	for _, gate := range g {
		if err := gate.Check(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

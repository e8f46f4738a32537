package agentrun

import (
	"context"
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/telemetry"
)

// workspacePlan is what the built-in tools are built from: the workspace's
// classifier and the sandbox check.
type workspacePlan struct {
	cls     *risk.Classifier
	sandbox *sandboxPlan
}

// planWorkspace settles the workspace and checks the sandbox its shell
// commands run in: everything the MCP servers' policies need, and every
// error of the sandbox, before a server starts.
func (ts *toolset) planWorkspace(ios *iostreams.IOStreams, conf *runConf) (*workspacePlan, error) {
	wd, err := ios.Getwd()
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, err)
	}
	cls, err := risk.New(risk.Options{Dir: wd, Home: ios.Env("HOME")})
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, fmt.Errorf("working directory: %w", err))
	}
	ts.workDir = cls.Root()
	sp, err := ts.sandbox.check(ios, conf, ts.workDir)
	if err != nil {
		return nil, err
	}
	return &workspacePlan{cls: cls, sandbox: sp}, nil
}

// workspaceTools are the built-in tools over the working directory, with
// the shell's sandbox policy built from the plan. It runs while the MCP
// servers start (buildTools).
func (ts *toolset) workspaceTools(ios *iostreams.IOStreams, conf *runConf, plan *workspacePlan, warn func(string)) ([]loop.Tool, error) {
	var env []string
	if ios.Environ != nil {
		env = shellEnv(ios.Environ(), conf.cfg)
	}
	if plan.sandbox != nil {
		if err := ts.sandbox.build(ios, plan.sandbox); err != nil {
			return nil, err
		}
		// The shell's policy made the private temp dir. Without one the
		// shell keeps TMPDIR, even if a sandboxed server has made the dir
		// meanwhile.
		if ios.Environ != nil {
			env = ts.sandbox.tmpEnv(env)
		}
	}
	access, err := ts.sandbox.toolAccess(ios, conf)
	if err != nil {
		return nil, err
	}
	var tools []loop.Tool
	for _, t := range builtin.New(builtin.Options{Classifier: plan.cls, Store: ts.store, Env: env, Sandbox: ts.sandbox.policy,
		Access: access, OnDeny: mapDenial(&ts.denied, warn), OnHint: warn}) {
		tools = append(tools, t)
	}
	return tools, nil
}

// shellEnv is the environment shell commands get: builtin.BaseEnv and
// shell.env_passthrough out of odek's own, never a variable holding the API
// key. Everything else (secrets above all) stays out: env and printenv are
// safe commands, and a command the model writes has no business reading the
// operator's secrets.
func shellEnv(environ []string, cfg *config.Config) []string {
	var drop []string
	if cfg.APIKey != "" {
		drop = append(drop, cfg.APIKey)
	}
	return builtin.ShellEnv(environ, builtin.EnvOptions{Passthrough: cfg.ShellEnvPassthrough, Drop: drop})
}

// gateOptions are what the risk gate is built from.
type gateOptions struct {
	dangerous config.Dangerous
	defaulted []string          // the classes no setting named (--full-auto may relax them)
	dir       string            // the workspace, symlinks resolved
	contained policy.Contained  // the classes the sandbox makes safe
	parent    *wire.Policy      // a sub-agent's parent's policy; nil at top level
	denied    *runview.Denials  // collects the refused calls; nil drops them
	view      *runview.Progress // paused while a question is open
	warn      func(string)      // says what was denied
	notify    func(string)      // Notification hooks: a prompt asked or refused; nil = none
	asker     policy.Asker      // odek acp: the client answers prompts, not the terminal
	tel       *telemetry.Tracer // times each question's wait; nil = off
}

// newGate is the risk policy of docs/TOOLS.md over the dangerous settings. It
// asks on the terminal only when stdin and stderr are one; otherwise a
// prompt resolves by dangerous.non_interactive and never waits. Denials are
// shown on stderr.
func newGate(ios *iostreams.IOStreams, g gateOptions) (loop.Gate, error) {
	d := g.dangerous
	o := policy.Options{
		Config: policy.Config{Action: d.Action, NonInteractive: d.NonInteractive, Classes: d.Classes, Defaulted: g.defaulted,
			Allowlist: d.Allowlist, Denylist: d.Denylist},
		Dir:       g.dir,
		Contained: g.contained,
		OnDeny: func(oc policy.Outcome) {
			if g.denied != nil {
				g.denied.Add(oc)
			}
			e := policy.DeniedError{Tool: oc.Call.Tool, What: oc.Call.Risk.What, Class: oc.Class, ByOperator: oc.ByOperator}
			msg := strings.TrimPrefix(e.Error(), "operation ") + ": " + oc.Why
			g.warn(msg)
			if g.notify != nil && !oc.ByOperator {
				g.notify("odek: " + msg)
			}
		},
	}
	if g.asker != nil {
		o.Asker = g.asker
	} else if in, ok := ios.PromptIn(); ok {
		o.Asker = pausingAsker{policy.NewTerminal(in, ios.ErrOut), g.view, g.notify}
	}
	if o.Asker != nil && g.tel != nil {
		o.Asker = tracedAsker{o.Asker, g.tel}
	}
	p, err := policy.New(o)
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, err)
	}
	parent, err := parentGate(g.parent, g.dir, g.warn)
	if err != nil || parent == nil {
		return policyGate{p}, err
	}
	return bothGates{policyGate{p}, parent}, nil
}

// pausingAsker takes the status line off the terminal while the policy's
// question is open, so no repaint lands on it or on the key typed.
type pausingAsker struct {
	a      policy.Asker
	view   *runview.Progress
	notify func(string) // Notification hooks; nil = none
}

func (p pausingAsker) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	if p.notify != nil {
		p.notify(fmt.Sprintf("odek needs your permission to run %s: %s", q.Tool, q.What))
	}
	p.view.Pause()
	defer p.view.Resume()
	return p.a.Ask(ctx, q)
}

// policyGate adapts the policy to the loop's Gate.
type policyGate struct{ p *policy.Policy }

func (g policyGate) Check(ctx context.Context, c loop.GateCall) error {
	return g.p.Check(ctx, policy.Call{Tool: c.Tool, Args: c.Args, Risk: c.Risk, Assessed: c.Assessed, HookAsk: c.HookAsk})
}

// containedClasses are the classes whose prompts the sandbox makes
// redundant for the shell tool: with every promise held, a system_write
// command can only read outside the workspace (the protected set is
// closed) — its writes, signals and privilege changes fail in the kernel.
// --full-auto adds every class the sandbox contains: code execution,
// installs and unknown programs run inside it too. network_egress is never
// contained (allowed, it runs with the network on); destructive and
// blocked stay as configured.
func (s *sandboxState) contained() policy.Contained {
	if !s.held {
		return policy.Contained{}
	}
	set := risk.Of(risk.SystemWrite)
	if s.fullAuto {
		set |= risk.Of(risk.CodeExecution, risk.Install, risk.Unknown)
	}
	return policy.Contained{Tools: []string{"shell"}, Classes: set, Force: s.fullAuto}
}

package main

import (
	"context"
	"strings"

	"github.com/odek-run/odek/internal/builtin"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/risk"
)

// workspaceTools are the built-in tools over the working directory.
func (s *runState) workspaceTools(ios *IOStreams, store builtin.ResultStore) ([]loop.Tool, error) {
	wd, err := ios.Getwd()
	if err != nil {
		return nil, asSetup(err)
	}
	cls, err := risk.New(risk.Options{Dir: wd, Home: ios.env("HOME")})
	if err != nil {
		return nil, setupErrorf("working directory: %w", err)
	}
	s.workDir = cls.Root()
	if err := s.setUpSandbox(ios, s.sandboxLimit); err != nil {
		return nil, err
	}
	var env []string
	if ios.Environ != nil {
		env = s.shellTmpEnv(shellEnv(ios.Environ(), s.cfg))
	}
	var tools []loop.Tool
	for _, t := range builtin.New(builtin.Options{Classifier: cls, Store: store, Env: env, Sandbox: s.sandbox.policy}) {
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

// newGate is the risk policy of docs/TOOLS.md over the dangerous settings. It
// asks on the terminal only when stdin and stderr are one; otherwise a
// prompt resolves by dangerous.non_interactive and never waits. Denials are
// shown on stderr.
func (s *runState) newGate(ios *IOStreams) (loop.Gate, error) {
	d := s.cfg.Dangerous
	o := policy.Options{
		Config:    policy.Config{Action: d.Action, NonInteractive: d.NonInteractive, Classes: d.Classes, Allowlist: d.Allowlist, Denylist: d.Denylist},
		Dir:       s.workDir,
		Contained: s.containedClasses(),
		OnDeny: func(oc policy.Outcome) {
			s.denied.add(oc)
			e := policy.DeniedError{Tool: oc.Call.Tool, What: oc.Call.Risk.What, Class: oc.Class, ByOperator: oc.ByOperator}
			s.warn(strings.TrimPrefix(e.Error(), "operation ") + ": " + oc.Why)
		},
	}
	if ios.StdinTTY && ios.StderrTTY {
		o.Asker = pausingAsker{policy.NewTerminal(ios.In, ios.ErrOut), s.view}
	}
	p, err := policy.New(o)
	if err != nil {
		return nil, asSetup(err)
	}
	parent, err := s.parentGate(s.parentPolicy)
	if err != nil || parent == nil {
		return policyGate{p}, err
	}
	return bothGates{policyGate{p}, parent}, nil
}

// pausingAsker takes the status line off the terminal while the policy's
// question is open, so no repaint lands on it or on the key typed.
type pausingAsker struct {
	a    policy.Asker
	view *progressView
}

func (p pausingAsker) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	p.view.pause()
	defer p.view.resume()
	return p.a.Ask(ctx, q)
}

// policyGate adapts the policy to the loop's Gate.
type policyGate struct{ p *policy.Policy }

func (g policyGate) Check(ctx context.Context, c loop.GateCall) error {
	return g.p.Check(ctx, policy.Call{Tool: c.Tool, Args: c.Args, Risk: c.Risk, Assessed: c.Assessed})
}

// containedClasses are the classes whose prompts the sandbox makes
// redundant for the shell tool: with every promise held, a system_write
// command can only read outside the workspace (the protected set is
// closed) — its writes, signals and privilege changes fail in the kernel.
// --full-auto adds every class the sandbox contains: code execution,
// installs and unknown programs run inside it too. network_egress is never
// contained (allowed, it runs with the network on); destructive and
// blocked stay as configured.
func (s *runState) containedClasses() policy.Contained {
	if !s.sandbox.held {
		return policy.Contained{}
	}
	set := risk.Of(risk.SystemWrite)
	if s.fullAuto {
		set |= risk.Of(risk.CodeExecution, risk.Install, risk.Unknown)
	}
	return policy.Contained{Tools: []string{"shell"}, Classes: set, Force: s.fullAuto}
}

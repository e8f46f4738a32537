package agentrun

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/sandbox"
)

// runHooks is a run's lifecycle hooks (docs/HOOKS.md): the operator's, and
// the project's the operator approved; runner is nil when there are none.
type runHooks struct {
	operator, project hooks.Config
	child             bool // odek subagent
	runner            *hooks.Runner
}

// approveHooks settles which hooks run, before anything starts: none with
// no_hooks; the operator's as given; each project hook with a stored
// grant, ODEK_APPROVE_HOOKS=1 or a yes at the terminal (gateIOS), a
// declined one left out, and one nobody can approve a setup error naming
// it (exit 3). A sub-agent never asks and never fails for it: its parent
// settled the project's hooks, and one the parent's operator declined is
// left out of the child too.
func (r *Run) approveHooks(ctx context.Context, gateIOS *iostreams.IOStreams, child bool) error {
	cfg := r.conf.cfg
	r.hooks = &runHooks{child: child}
	if cfg.NoHooks || (cfg.Hooks.Empty() && cfg.ProjectHooks.Empty()) {
		return nil
	}
	r.hooks.operator = cfg.Hooks
	if cfg.ProjectHooks.Empty() {
		return nil
	}
	o := approval.Options{Home: cfg.Home, ApproveHooks: gateIOS.Env("ODEK_APPROVE_HOOKS") == "1"}
	if in, ok := gateIOS.PromptIn(); ok {
		o.Confirmer = approval.NewPrompter(in, gateIOS.ErrOut)
	}
	r.o.acp.approvals(&o)
	gate, err := approval.New(o)
	if err != nil {
		return err
	}
	var firstErr error
	r.hooks.project = cfg.ProjectHooks.Keep(cfg.Dir, func(s hooks.Spec) bool {
		if firstErr != nil {
			return false
		}
		ok, warns, err := gate.Hook(ctx, s)
		runview.PrintWarnings(gateIOS, warns)
		switch {
		case err != nil && child && errors.Is(err, approval.ErrNotApproved):
			runview.PrintWarnings(gateIOS, []string{"project hook " + s.Name() + " was not approved for this run; the sub-agent runs without it"})
		case err != nil:
			firstErr = err
		}
		return ok
	})
	return firstErr
}

// startHooks builds the runner once the sinks, the view and the sandbox
// are there: operator hooks with odek's environment (less its secrets),
// project hooks with the shell's and under a project server's sandbox.
func (r *Run) startHooks(ios *iostreams.IOStreams) error {
	h := r.hooks
	if h == nil || (h.operator.Empty() && h.project.Empty()) {
		return nil
	}
	cfg := r.conf.cfg
	var environ []string
	if ios.Environ != nil {
		environ = ios.Environ()
	}
	o := hooks.Options{
		Operator: h.operator, Project: h.project, Dir: r.tools.workDir,
		SessionID: r.hookSessionID, PermissionMode: r.permissionMode(ios),
		Subagent: h.child, AgentID: r.conf.place.agentID, AgentType: r.conf.place.agentType,
		OperatorEnv: operatorHookEnv(environ, cfg), LookupEnv: cfg.LookupEnv,
		Events: r.sinks.emitter, Redact: redact.String, Warn: r.sinks.warn, Telemetry: r.tel,
	}
	if !h.project.Empty() {
		p, err := r.tools.sandbox.serverPolicy(ios)(mcpclient.ServerConfig{Sandbox: sandbox.ModeWorkspaceWrite})
		if err != nil {
			return errclass.Wrap(errclass.SetupError, err)
		}
		o.Sandbox = p
		o.ProjectEnv = r.tools.sandbox.tmpEnv(shellEnv(environ, cfg))
	}
	h.runner = hooks.New(o)
	return nil
}

// operatorHookEnv is what the operator's command hooks run with: odek's
// environment without the API key's variables, any variable holding the
// key, or the names secrets.env defines.
func operatorHookEnv(environ []string, cfg *config.Config) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		if name == "ODEK_API_KEY" || name == "OPENAI_API_KEY" || slices.Contains(cfg.SecretNames, name) ||
			(cfg.APIKey != "" && strings.Contains(val, cfg.APIKey)) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// permissionMode is permission_mode in Claude Code's words: odek asks at a
// terminal, or an ACP client through session/request_permission (default),
// denies what it would ask with nobody to ask (dontAsk), or asks nothing
// (bypassPermissions: --full-auto, dangerous.action allow).
func (r *Run) permissionMode(ios *iostreams.IOStreams) string {
	switch {
	case r.conf.fullAuto || r.conf.cfg.Dangerous.Action == "allow":
		return "bypassPermissions"
	case r.o.acp.gateAsker() != nil:
		return "default"
	case r.conf.place.depth == 0 && canPrompt(ios):
		return "default"
	}
	return "dontAsk"
}

// hookSessionID is session_id: the session's id, else the run's.
func (r *Run) hookSessionID() string {
	if id := r.sessionID(); id != "" {
		return id
	}
	return r.conf.runID
}

// hookRunner is the run's runner, nil without hooks.
func (r *Run) hookRunner() *hooks.Runner {
	if r == nil || r.hooks == nil {
		return nil
	}
	return r.hooks.runner
}

// lateHooks fires the run's hooks for parts built before the runner
// (delegate_tasks, the risk gate's notifications).
type lateHooks struct{ r *Run }

func (l lateHooks) Fire(ctx context.Context, in hooks.Input) hooks.Result {
	return l.r.hookRunner().Fire(ctx, in)
}

// notify fires Notification (permission_prompt) for the operator's eyes:
// odek asks about a call, or refused one it would have asked about.
func (r *Run) notify(message string) {
	if rn := r.hookRunner(); rn.Has(hooks.Notification) {
		rn.Fire(context.Background(), hooks.Input{Event: hooks.Notification, NotificationType: "permission_prompt",
			Title: "odek", Message: message})
	}
}

// closeHooks removes the transcript.
func (r *Run) closeHooks() { r.hookRunner().Close() }

// hookOptions gives the loop the runner (none when no hook is configured:
// the loop then pays nothing) and the Stop hooks' cap.
func (r *Run) hookOptions(o *loop.Options) {
	if rn := r.hookRunner(); rn != nil {
		o.Hooks = rn
	}
	o.MaxStopContinuations = r.conf.cfg.MaxStopContinuations
}

// childArgs are a sub-agent's further flags: its cassette's, and no hooks
// when this run has none by the operator's choice.
func (r *Run) childArgs(goal string) []string {
	args := r.cas.childArgs(goal)
	if r.conf.cfg.NoHooks {
		args = append(args, "-c", "no_hooks=true")
	}
	return args
}

// canPrompt reports whether someone can answer a question (PromptIn).
func canPrompt(ios *iostreams.IOStreams) bool {
	_, ok := ios.PromptIn()
	return ok
}

package agentrun

import (
	"path/filepath"
	"sync"

	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/subagent"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// The process-wide sub-agent semaphore (docs/SUBAGENTS.md): one per process,
// shared by every delegate_tasks call, sized by max_concurrency when first
// used.
var (
	semOnce sync.Once
	sem     *subagent.Semaphore
)

func processSemaphore(n int) *subagent.Semaphore {
	semOnce.Do(func() { sem = subagent.NewSemaphore(n, Seams.WaitNotice) })
	return sem
}

// delegateTool is delegate_tasks for this run: children are this binary, in
// this working directory, with this run's events, budget and artifact store.
// Nil when subagent.max_depth is 0 (no sub-agents).
func (r *Run) delegateTool(ios *iostreams.IOStreams) (*subagent.Tool, error) {
	cfg := r.conf.cfg
	sc := readSubagentConfig(cfg)
	if sc.Settings.MaxDepth == 0 {
		return nil, nil
	}
	runner, err := r.subagentRunner(cfg)
	if err != nil {
		return nil, err
	}
	wd, _ := ios.Getwd()
	var env []string
	if ios.Environ != nil {
		env = ios.Environ()
	}
	return subagent.NewTool(subagent.Options{
		Sandbox:       r.tools.sandbox.taskSandbox(),
		NoAgents:      cfg.NoAgents || r.child != nil && r.child.task.NoAgents,
		Runner:        runner,
		Semaphore:     processSemaphore(cfg.MaxConcurrency),
		Settings:      sc.Settings,
		Events:        r.sinks.emitter,
		Budget:        r.limits.tracker,
		OnOverrun:     r.limits.overrun,
		Store:         r.tools.store,
		Depth:         r.conf.place.depth,
		ParentTrust:   r.conf.place.trust,
		Tainted:       r.tainted.Load,
		ArtifactsHome: filepath.Join(cfg.Home, "artifacts"),
		// Task files go where no sandboxed command may write (odek's home
		// is protected): the temp dir may be writable for them (TMPDIR in
		// the workspace, /tmp among sandbox.writable_paths), and the child
		// takes its goal, base_url, sandbox and trust from the file.
		TempDir:     filepath.Join(cfg.Home, "tmp"),
		Session:     r.sessionID,
		Workspace:   wd,
		Env:         env,
		SecretNames: cfg.SecretNames,
		Secret:      redact.IsSecretName,
		APIKey:      cfg.APIKey,
		Model:       cfg.Model,
		BaseURL:     cfg.BaseURL,
		Provider:    providerOf(cfg.BaseURL), // a label, as the session records it
		// The children's tools and policy are never wider than this run's,
		// and they talk to the model the way it does.
		ParentTools:  r.tools.offeredNames,
		ParentPolicy: parentPolicy(cfg.Dangerous),
		LLM:          llmSettings(cfg),
		// Children relay their events only when this run writes them somewhere.
		ForwardEvents: r.sinks.forwarding(),
		OnLine:        func(task int, l *wire.Line) { r.sinks.view.SubagentLine(task, l) },
		ChildArgs:     r.childArgs,
		Hooks:         lateHooks{r},
	}), nil
}

// sessionID is the run's session, the parent_session of its sub-agents: a
// run's own (--session, continue), or for a sub-agent its parent's.
func (r *Run) sessionID() string {
	switch {
	case r.session != nil && r.session.sess != nil:
		return r.session.sess.ID
	case r.conf.place.parentSession != "":
		return r.conf.place.parentSession
	}
	return ""
}

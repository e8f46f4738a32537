package main

import (
	"path/filepath"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/subagent"
	"github.com/odek-run/odek/internal/subagent/childside"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// The process-wide sub-agent semaphore (docs/SUBAGENTS.md): one per process,
// shared by every delegate_tasks call, sized by max_concurrency when first
// used. waitNotice is how long a task queues before it is reported; the test
// binary shortens it.
var (
	semOnce    sync.Once
	sem        *subagent.Semaphore
	waitNotice = subagent.DefaultWaitNotice
)

// Seams the test binary sets so that a script waits for a state, not for a
// race against a short timer: softDeadline computes a sub-agent's deadlines
// from its timeout, mcpInterruptGrace is each step of stopping the MCP
// servers after an interrupt (0 = mcpclient's 250 ms).
var (
	softDeadline      = childside.SoftDeadline
	mcpInterruptGrace time.Duration
)

func processSemaphore(n int) *subagent.Semaphore {
	semOnce.Do(func() { sem = subagent.NewSemaphore(n, waitNotice) })
	return sem
}

// delegateTool is delegate_tasks for this run: children are this binary, in
// this working directory, with this run's events, budget and artifact store.
// Nil when subagent.max_depth is 0 (no sub-agents).
func (s *runState) delegateTool(ios *IOStreams, store *artifact.Store) *subagent.Tool {
	sc := readSubagentConfig(s.cfg)
	if sc.Settings.MaxDepth == 0 {
		return nil
	}
	wd, _ := ios.Getwd()
	var env []string
	if ios.Environ != nil {
		env = ios.Environ()
	}
	return subagent.NewTool(subagent.Options{
		Sandbox:       s.taskSandbox(),
		Runner:        &subagent.LocalRunner{},
		Semaphore:     processSemaphore(s.cfg.MaxConcurrency),
		Settings:      sc.Settings,
		Events:        s.emitter,
		Budget:        s.tracker,
		OnOverrun:     s.overrun,
		Store:         store,
		Depth:         s.depth,
		ParentTrust:   s.trust,
		Tainted:       s.tainted.Load,
		ArtifactsHome: filepath.Join(s.cfg.Home, "artifacts"),
		Session:       s.sessionID,
		Workspace:     wd,
		Env:           env,
		SecretNames:   s.cfg.SecretNames,
		Secret:        redact.IsSecretName,
		APIKey:        s.cfg.APIKey,
		Model:         s.cfg.Model,
		BaseURL:       s.cfg.BaseURL,
		Provider:      providerOf(s.cfg.BaseURL), // a label, as the session records it
		// The children's tools and policy are never wider than this run's,
		// and they talk to the model the way it does.
		ParentTools:  s.offeredToolNames,
		ParentPolicy: parentPolicy(s.cfg.Dangerous),
		LLM:          llmSettings(s.cfg),
		// Children relay their events only when this run writes them somewhere.
		ForwardEvents: s.sink != nil || s.relay,
		OnLine:        func(task int, l *wire.Line) { s.view.subagentLine(task, l) },
		ChildArgs:     s.cas.childArgs,
	})
}

// sessionID is the run's session, the parent_session of its sub-agents: a
// run's own (--session, continue), or for a sub-agent its parent's.
func (s *runState) sessionID() string {
	switch {
	case s.sess != nil:
		return s.sess.ID
	case s.parentSession != "":
		return s.parentSession
	}
	return ""
}

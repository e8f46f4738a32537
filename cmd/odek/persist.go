package main

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/msgkind"
	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/session"
	"github.com/spf13/cobra"
)

// sessionFlags are the flags run and continue share for sessions and the
// negative forms of two table flags (--planning and --compaction come from
// the settings table); apply turns them into runOptions.
type sessionFlags struct {
	refs                     []string
	noPlanning, noCompaction bool
}

func (f *sessionFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.refs, "external-ref", nil, "store a pointer to outside state with the session, never fetched: kind=..,uri=..,created_by=..[,read_only=..] or kind=uri (repeatable)")
	fl.BoolVar(&f.noPlanning, "no-planning", false, "do not offer the plan tool (wins over --planning)")
	fl.BoolVar(&f.noCompaction, "no-compaction", false, "drop trimmed turns without a summary (wins over --compaction)")
}

// apply parses the refs (a malformed one is a setup error) and records the
// --no-* flags as overrides.
func (f *sessionFlags) apply(cmd *cobra.Command, o *runOptions) error {
	for _, s := range f.refs {
		r, err := session.ParseExternalRef(s)
		if err != nil {
			return setupErrorf("%s: --external-ref: %w", cmd.Name(), err)
		}
		o.refs = append(o.refs, r)
	}
	if f.noPlanning {
		if err := o.overrides.Set("planning.enabled", "false", "--no-planning"); err != nil {
			return asSetup(err)
		}
	}
	if f.noCompaction {
		if err := o.overrides.Set("compaction", "false", "--no-compaction"); err != nil {
			return asSetup(err)
		}
	}
	return nil
}

// sessionStore is the store under the odek home, signing and verifying
// with the install's key ($ODEK_HOME/session.key).
func sessionStore(home string, ios *IOStreams) *session.Store {
	return session.NewStore(session.Options{Dir: filepath.Join(home, "sessions"), Now: ios.Now, Redact: redact.String,
		KeyPath: filepath.Join(home, session.KeyFile)})
}

// addPlan adds the plan tool to the run's tools when planning is on, the
// tool filters allow it and the run has other tools: a plan is for work
// done with tools, and a run without any sends no tools field at all, so a
// model without tool support needs no flag. Its changes become plan events
// (counts and version only).
func (s *runState) addPlan(tools []loop.Tool) []loop.Tool {
	p := s.cfg.Planning
	if !p.Enabled || len(tools) == 0 || !toolOffered(plan.ToolName, s.cfg.ToolsEnabled, s.cfg.ToolsDisabled) {
		return tools
	}
	s.plan = plan.New(plan.Options{MaxSteps: p.MaxSteps, MaxRenderChars: p.MaxRenderChars, OnChange: func(c plan.Change) {
		s.emitter.Emit(events.Type(c.Event), 0, "", c.Data())
	}})
	return append(tools, s.plan)
}

// beginHistory is the history the loop starts from: the task alone, a new
// session holding it (run --session), or a loaded session with the task
// appended (continue).
func (s *runState) beginHistory(ios *IOStreams, o runOptions, system string) (*loop.History, error) {
	var msgs []llm.Message
	if o.resume == nil {
		if system != "" {
			msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: o.task})
		if !o.session {
			return loop.NewHistory(msgs...), nil
		}
		return s.createSession(ios, o, msgs)
	}
	return s.resumeSession(ios, o)
}

func (s *runState) createSession(ios *IOStreams, o runOptions, msgs []llm.Message) (*loop.History, error) {
	s.sessions = sessionStore(s.cfg.Home, ios)
	sess, warns, err := s.sessions.Create(session.New{Model: s.cfg.Model, Provider: providerOf(s.cfg.BaseURL), Task: o.task, Messages: msgs, Refs: o.refs, Dir: sessionDir(ios)})
	printWarnings(ios, warns)
	if err != nil {
		return nil, asSetup(err)
	}
	s.sess = sess
	s.emitter.SetSessionID(sess.ID)
	s.note(ios, o, "odek: session %s created\n", sess.ID)
	return loop.NewHistory(msgs...), nil
}

func (s *runState) resumeSession(ios *IOStreams, o runOptions) (*loop.History, error) {
	s.sessions, s.sess = sessionStore(s.cfg.Home, ios), o.resume
	if merged, added := session.MergeRefs(s.sess.ExternalRefs, o.refs, ios.Now()); added > 0 {
		s.sess.ExternalRefs = merged
		warns, err := s.sessions.Save(s.sess) // new refs are kept even if the run fails
		printWarnings(ios, warns)
		if err != nil {
			return nil, err
		}
	}
	s.emitter.SetSessionID(s.sess.ID)
	s.note(ios, o, "odek: continuing session %s (turn %d → %d)\n", s.sess.ID, s.sess.Turns, s.sess.Turns+1)
	if s.sess.Unverified() {
		printWarnings(ios, []string{fmt.Sprintf("session %s has no MAC (it was saved by an older odek), so it cannot be told unchanged: continuing it as untrusted content (sub-agents get no trust)", s.sess.ID)})
	}
	if s.sess.Tainted || session.Trimmed(s.sess.Messages) || heldStdin(s.sess.Messages) {
		s.taint() // untrusted before, unverifiable, piped in, or what was removed cannot be told trusted: fail closed
	}
	h := loop.Regroup(restorePlan(s.plan, s.sess.Messages))
	h.Append(llm.Message{Role: llm.RoleUser, Content: s.schema.task(o.task, h.Messages())})
	return h, nil
}

// heldStdin reports a user message that carries context piped in on stdin
// (between the stdin delimiters): a session begun with it continues
// tainted. A task read from a file leaves no such mark.
func heldStdin(msgs []llm.Message) bool {
	for _, m := range msgs {
		if m.Role == llm.RoleUser && strings.Contains(m.Content, "\n"+stdinOpen+"\n") && strings.Contains(m.Content, "\n"+stdinClose) {
			return true
		}
	}
	return false
}

// restorePlan restores the plan from the newest plan message that parses
// and removes every other plan message (unparseable, cut, or older). With
// planning off the transcript is left as it is.
func restorePlan(p *plan.Plan, msgs []llm.Message) []llm.Message {
	if p == nil {
		return msgs
	}
	keep := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if isPlanMessage(msgs[i]) && p.Restore(msgs[i].Content) == nil {
			keep = i
			break
		}
	}
	out := make([]llm.Message, 0, len(msgs))
	for i, m := range msgs {
		if i == keep || !isPlanMessage(m) {
			out = append(out, m)
		}
	}
	return out
}

func isPlanMessage(m llm.Message) bool {
	return m.Kind == msgkind.Plan
}

// saveBatch is the loop's AfterBatch: it saves the history (unless it is
// shorter than what is stored) and emits session_saved. A failed save warns
// once and the run goes on.
func (s *runState) saveBatch(ios *IOStreams, h []llm.Message) {
	if len(h) < s.sess.StoredCount() {
		return
	}
	if err := s.save(ios, h); err != nil {
		return
	}
	s.emitter.Emit(events.SessionSaved, 0, "", map[string]any{"message_count": s.sess.StoredCount()})
}

func (s *runState) save(ios *IOStreams, h []llm.Message) error {
	s.sess.Update(h)
	if s.tainted.Load() {
		s.sess.Tainted = true // sticky: a later continue starts tainted whatever the history shows
	}
	warns, err := s.sessions.Save(s.sess)
	for _, w := range warns {
		s.warn(w)
	}
	if err != nil && !s.saveFailed {
		s.saveFailed = true
		s.warn("session save failed: " + err.Error())
	}
	return err
}

// endSession saves what the run left (a failed, interrupted or stopped run
// included; the loop never leaves a dangling tool call, and Regroup makes
// sure).
func (s *runState) endSession(ios *IOStreams, res *loop.Result) {
	if s.sess == nil || res == nil {
		return
	}
	h := loop.Regroup(res.History).Messages()
	if s.sess.Changed(h) && len(h) >= s.sess.StoredCount() {
		_ = s.save(ios, h)
	}
}

// sessionNote tells how to go on.
func (s *runState) sessionNote(ios *IOStreams, o runOptions) {
	if s.sess != nil {
		s.note(ios, o, "odek: session %s saved — continue with: odek continue --id %s \"...\"\n", s.sess.ID, s.sess.ID)
	}
}

// sessionOptions wires sessions, the plan and context trimming into the loop.
func (s *runState) sessionOptions(ios *IOStreams, opts *loop.Options) {
	if s.sess != nil {
		opts.AfterBatch = func(h []llm.Message) { s.saveBatch(ios, h) }
	}
	if s.plan != nil {
		opts.Plan = s.plan.Message
	}
	opts.ContextWindow = contextWindow(s.cfg)
	opts.Compaction = s.cfg.Compaction
	opts.Warn = s.warn
}

// providerOf is the endpoint as a session records it: no userinfo, query
// or fragment, where a credential could hide.
func providerOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// contextWindow is the model's context size: context_window, else the
// model's model_context_windows entry, else a well-known model's size; 0
// (unknown) means no proactive trimming.
func contextWindow(cfg *config.Config) int {
	if cfg.ContextWindow > 0 {
		return cfg.ContextWindow
	}
	if n := cfg.ModelContextWindows[cfg.Model]; n > 0 {
		return n
	}
	return loop.KnownContextWindow(cfg.Model)
}

// note prints a session line on stderr unless --quiet.
func (s *runState) note(ios *IOStreams, o runOptions, format string, args ...any) {
	if !o.quiet {
		fmt.Fprintf(ios.ErrOut, format, args...)
	}
}

// loadForContinue finds the session `continue` resumes: --id (given, even
// empty), else the newest. A malformed id is a usage error (exit 3).
func loadForContinue(ios *IOStreams, id string, given, anyDir bool) (*session.Session, error) {
	store, _, err := openSessions(ios)
	if err != nil {
		return nil, err
	}
	switch {
	case given:
		return loadSession(store, []string{id})
	case anyDir:
		return store.Newest()
	}
	return store.NewestIn(sessionDir(ios))
}

// sessionDir is the directory a session belongs to: the working directory,
// absolute with symlinks resolved (as the workspace tools see it), so a
// path reached through a link finds the same sessions; "" when it cannot
// be found.
func sessionDir(ios *IOStreams) string {
	wd, err := ios.Getwd()
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(wd); err == nil {
		wd = abs
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	return wd
}

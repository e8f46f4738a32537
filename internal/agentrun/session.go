package agentrun

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/msgkind"
	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/session"
)

// SessionStore is the store under the odek home, signing and verifying
// with the install's key ($ODEK_HOME/session.key).
func SessionStore(home string, ios *iostreams.IOStreams) *session.Store {
	return session.NewStore(session.Options{Dir: filepath.Join(home, "sessions"), Now: ios.Now, Redact: redact.String,
		KeyPath: filepath.Join(home, session.KeyFile)})
}

// addPlan adds the plan tool to the run's tools when planning is on, the
// tool filters allow it and the run has other tools: a plan is for work
// done with tools, and a run without any sends no tools field at all, so a
// model without tool support needs no flag. Its changes become plan events
// (counts and version only) on em.
func addPlan(tools []loop.Tool, cfg *config.Config, em *events.Emitter) ([]loop.Tool, *plan.Plan) {
	p := cfg.Planning
	if !p.Enabled || len(tools) == 0 || !toolOffered(plan.ToolName, cfg.ToolsEnabled, cfg.ToolsDisabled) {
		return tools, nil
	}
	pl := plan.New(plan.Options{MaxSteps: p.MaxSteps, MaxRenderChars: p.MaxRenderChars, OnChange: func(c plan.Change) {
		em.Emit(events.Type(c.Event), 0, "", c.Data())
	}})
	return append(tools, pl), pl
}

// runSession is the session a run saves (run --session, continue): the
// store, the session, and what saving needs from the rest of the run.
type runSession struct {
	store      *session.Store
	sess       *session.Session
	saveFailed bool // the failed-save warning was given
	em         *events.Emitter
	warn       func(string)
	tainted    func() bool // the run has seen untrusted content: the session stays tainted
}

// newRunSession is the session part over the odek home's store.
func (r *Run) newRunSession(ios *iostreams.IOStreams, sess *session.Session) *runSession {
	return &runSession{store: SessionStore(r.conf.cfg.Home, ios), sess: sess, em: r.sinks.emitter,
		warn: r.sinks.warn, tainted: r.tainted.Load}
}

// beginHistory is the history the loop starts from: the task alone, a new
// session holding it (run --session), or a loaded session with the task
// appended (continue).
func (r *Run) beginHistory(ios *iostreams.IOStreams, system string) (*loop.History, error) {
	o := r.o
	var msgs []llm.Message
	if o.Resume == nil {
		if system != "" {
			msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: o.Task})
		if !o.Session {
			return loop.NewHistory(msgs...), nil
		}
		return r.createSession(ios, msgs)
	}
	return r.resumeSession(ios, system)
}

func (r *Run) createSession(ios *iostreams.IOStreams, msgs []llm.Message) (*loop.History, error) {
	o := r.o
	cfg := r.conf.cfg
	rs := r.newRunSession(ios, nil)
	sess, warns, err := rs.store.Create(session.New{ID: o.SessionID, Model: cfg.Model, Provider: providerOf(cfg.BaseURL), Task: o.Task, Messages: msgs, Refs: o.Refs, Dir: SessionDir(ios)})
	runview.PrintWarnings(ios, warns)
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, err)
	}
	rs.sess, r.session = sess, rs
	r.sinks.emitter.SetSessionID(sess.ID)
	r.span.SetConversationID(sess.ID)
	note(ios, o.Quiet, "odek: session %s created\n", sess.ID)
	return loop.NewHistory(msgs...), nil
}

func (r *Run) resumeSession(ios *iostreams.IOStreams, system string) (*loop.History, error) {
	o := r.o
	r.session = r.newRunSession(ios, o.Resume)
	sess := o.Resume
	if merged, added := session.MergeRefs(sess.ExternalRefs, o.Refs, ios.Now()); added > 0 {
		sess.ExternalRefs = merged
		warns, err := r.session.store.Save(sess) // new refs are kept even if the run fails
		runview.PrintWarnings(ios, warns)
		if err != nil {
			return nil, err
		}
	}
	r.sinks.emitter.SetSessionID(sess.ID)
	note(ios, o.Quiet, "odek: continuing session %s (turn %d → %d)\n", sess.ID, sess.Turns, sess.Turns+1)
	if sess.Unverified() {
		runview.PrintWarnings(ios, []string{fmt.Sprintf("session %s has no MAC (it was saved by an older odek), so it cannot be told unchanged: continuing it as untrusted content (sub-agents get no trust)", sess.ID)})
	}
	if sess.Tainted || session.Trimmed(sess.Messages) || heldStdin(sess.Messages) {
		r.taint() // untrusted before, unverifiable, piped in, or what was removed cannot be told trusted: fail closed
	}
	msgs := sess.Messages
	if len(msgs) == 0 && system != "" { // odek acp's session/new stores no message
		msgs = []llm.Message{{Role: llm.RoleSystem, Content: system}}
	}
	h := loop.Regroup(restorePlan(r.tools.plan, msgs))
	h.Append(llm.Message{Role: llm.RoleUser, Content: r.schema.task(o.Task, h.Messages())})
	return h, nil
}

// The delimiter around stdin piped in beside a task argument: a session
// whose task carries it continues tainted (heldStdin).
const (
	StdinOpen  = "--- stdin ---"
	StdinClose = "--- end stdin ---"
)

// heldStdin reports a user message that carries context piped in on stdin
// (between the stdin delimiters): a session begun with it continues
// tainted. A task read from a file leaves no such mark.
func heldStdin(msgs []llm.Message) bool {
	for _, m := range msgs {
		if m.Role == llm.RoleUser && strings.Contains(m.Content, "\n"+StdinOpen+"\n") && strings.Contains(m.Content, "\n"+StdinClose) {
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
func (rs *runSession) saveBatch(h []llm.Message) {
	if len(h) < rs.sess.StoredCount() {
		return
	}
	if err := rs.save(h); err != nil {
		return
	}
	rs.em.Emit(events.SessionSaved, 0, "", map[string]any{"message_count": rs.sess.StoredCount()})
}

func (rs *runSession) save(h []llm.Message) error {
	rs.sess.Update(h)
	if rs.tainted() {
		rs.sess.Tainted = true // sticky: a later continue starts tainted whatever the history shows
	}
	warns, err := rs.store.Save(rs.sess)
	for _, w := range warns {
		rs.warn(w)
	}
	if err != nil && !rs.saveFailed {
		rs.saveFailed = true
		rs.warn("session save failed: " + err.Error())
	}
	return err
}

// end saves what the run left (a failed, interrupted or stopped run
// included; the loop never leaves a dangling tool call, and Regroup makes
// sure). A nil session does nothing.
func (rs *runSession) end(res *loop.Result) {
	if rs == nil || res == nil {
		return
	}
	h := loop.Regroup(res.History).Messages()
	if rs.sess.Changed(h) && len(h) >= rs.sess.StoredCount() {
		_ = rs.save(h)
	}
}

// goOnNote tells how to go on.
func (rs *runSession) goOnNote(ios *iostreams.IOStreams, quiet bool) {
	if rs != nil {
		note(ios, quiet, "odek: session %s saved — continue with: odek continue --id %s \"...\"\n", rs.sess.ID, rs.sess.ID)
	}
}

// sessionOptions wires sessions, the plan and context trimming into the loop.
func (r *Run) sessionOptions(opts *loop.Options) {
	if rs := r.session; rs != nil {
		opts.AfterBatch = rs.saveBatch
	}
	if r.tools.plan != nil {
		opts.Plan = r.tools.plan.Message
	}
	opts.ContextWindow = contextWindow(r.conf.cfg)
	opts.Compaction = r.conf.cfg.Compaction
	opts.Warn = r.sinks.warn
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
func note(ios *iostreams.IOStreams, quiet bool, format string, args ...any) {
	if !quiet {
		fmt.Fprintf(ios.ErrOut, format, args...)
	}
}

// SessionDir is the directory a session belongs to: the working directory,
// absolute with symlinks resolved (as the workspace tools see it), so a
// path reached through a link finds the same sessions; "" when it cannot
// be found.
func SessionDir(ios *iostreams.IOStreams) string {
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

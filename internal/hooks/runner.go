package hooks

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/telemetry"
)

// Options configure a Runner for one run.
type Options struct {
	// Operator hooks come from the operator's config and run as given;
	// Project hooks come from ./odek.json, were approved, and run under
	// Sandbox (nil: unconfined, where the kernel offers no sandbox).
	Operator, Project Config
	Sandbox           *sandbox.Policy

	// Dir is the working directory: cwd, and CLAUDE_PROJECT_DIR.
	Dir string
	// SessionID gives session_id when a hook fires (a session may begin
	// after the Runner): the session's id, else the run's.
	SessionID func() string
	// PermissionMode is permission_mode: "default" where a terminal can
	// answer prompts, "dontAsk" where none can, "bypassPermissions" with
	// --full-auto or dangerous.action "allow".
	PermissionMode string
	// Subagent: this run is a sub-agent (odek subagent), whose start and
	// end are its parent's SubagentStart and SubagentStop; AgentID and
	// AgentType are its task id and profile, set in every event it fires.
	Subagent           bool
	AgentID, AgentType string

	// OperatorEnv and ProjectEnv are the environments command hooks run
	// with (CLAUDE_PROJECT_DIR and ODEK_PROJECT_DIR are added);
	// LookupEnv expands an operator http hook's header values.
	OperatorEnv, ProjectEnv []string
	LookupEnv               func(string) (string, bool)

	Events *events.Emitter
	// Redact masks secrets in what hooks are given; nil passes text as is.
	Redact func(string) string
	// Warn is told what the operator should see: failed hooks, a hook's
	// systemMessage, exit-2 stderr of events that cannot block.
	Warn func(string)
	// TempDir holds the transcript's directory ("" = os.TempDir).
	TempDir string
	// HTTPClient posts http hooks; nil = a client without redirects.
	HTTPClient *http.Client
	Now        func() time.Time
	// Telemetry puts each handler's run in an execute_hook span, and gives
	// a command hook its TRACEPARENT (an http hook its traceparent
	// header); nil = off.
	Telemetry *telemetry.Tracer
}

// Runner runs a run's hooks; its methods are safe for concurrent use.
type Runner struct {
	o       Options
	byEvent map[Event][]entry
	tr      *transcript
	counts  counters
}

// entry is one handler of one matcher group.
type entry struct {
	event   Event
	group   *Group
	h       Handler
	project bool
	pins    []pin // the workspace files its command line names
}

// New returns the Runner of o, or nil when no hook is configured: the
// caller then holds none, and its events cost nothing.
func New(o Options) *Runner {
	if o.Operator.Empty() && o.Project.Empty() {
		return nil
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SessionID == nil {
		o.SessionID = func() string { return "" }
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	r := &Runner{o: o, byEvent: map[Event][]entry{}, tr: &transcript{tempDir: o.TempDir, redact: o.Redact}}
	r.add(o.Operator, false)
	r.add(o.Project, true)
	return r
}

// add indexes a config's handlers, the operator's before the project's.
// A sub-agent fires only the events of its own calls: its start and end
// are its parent's SubagentStart and SubagentStop, as in Claude Code.
func (r *Runner) add(c Config, project bool) {
	for _, e := range Events {
		if r.o.Subagent && !toolEvent(e) && e != PreCompact && e != Notification {
			continue
		}
		for gi := range c[e] {
			g := &c[e][gi]
			for _, h := range g.Hooks {
				r.byEvent[e] = append(r.byEvent[e], entry{event: e, group: g, h: h, project: project, pins: pins(r.o.Dir, h)})
			}
		}
	}
}

// Has reports whether any hook is configured for e.
func (r *Runner) Has(e Event) bool { return r != nil && len(r.byEvent[e]) > 0 }

// Close removes the transcript. Idempotent.
func (r *Runner) Close() {
	if r != nil {
		r.tr.close()
	}
}

// Fire runs the hooks in's event matches, at once, and merges what they
// answered. A nil Runner, or an event without hooks, returns the zero
// Result at once.
func (r *Runner) Fire(ctx context.Context, in Input) Result {
	if r == nil {
		return Result{}
	}
	matched := r.matching(in)
	if len(matched) == 0 {
		return Result{}
	}
	path, err := r.tr.update(in.History, in.Pending)
	if err != nil {
		r.o.Warn(err.Error() + "; hooks get an empty transcript_path")
	}
	body, err := r.encode(in, path)
	if err != nil { // cannot happen: every field marshals
		r.o.Warn("hooks: " + err.Error())
		return Result{}
	}
	outs := make([]outcome, len(matched))
	var wg sync.WaitGroup
	for i, e := range matched {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = r.runOne(ctx, in, e, body)
		}()
	}
	wg.Wait()
	return r.merge(in, outs)
}

// matching are the handlers in's event runs, without repeats: the same
// command (or URL) of the same origin runs once, as in Claude Code.
func (r *Runner) matching(in Input) []entry {
	all := r.byEvent[in.Event]
	if len(all) == 0 {
		return nil
	}
	names := matchNames(in)
	var out []entry
	seen := map[string]bool{}
	for _, e := range all {
		if names != nil && !e.group.m.match(names...) {
			continue
		}
		key := e.h.Type + "\x00" + e.h.Command + "\x00" + e.h.URL
		if e.project {
			key = "p\x00" + key
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, e)
	}
	return out
}

// matchNames is what an event's matcher is matched against; nil for the
// events whose matcher is ignored.
func matchNames(in Input) []string {
	switch {
	case toolEvent(in.Event):
		return toolNames(in.Tool)
	case in.Event == SessionStart:
		return []string{in.Source}
	case in.Event == SessionEnd:
		return []string{in.Reason}
	case in.Event == PreCompact:
		return []string{in.Trigger}
	case in.Event == Notification:
		return []string{in.NotificationType}
	case in.Event == SubagentStart, in.Event == SubagentStop:
		return []string{in.AgentType}
	}
	return nil
}

// counters count the handlers run, for the run report.
type counters struct {
	run, blocked, failed, timedOut atomic.Int64
}

// Counts is what the run report says about hooks.
type Counts struct {
	Run      int64 `json:"run"`       // handlers run
	Blocked  int64 `json:"blocked"`   // that blocked, denied or asked
	Failed   int64 `json:"failed"`    // that failed: crashed, exited non-zero but 2, answered garbage
	TimedOut int64 `json:"timed_out"` // that were killed at their timeout
}

// Counts returns the counts so far (zero for a nil Runner).
func (r *Runner) Counts() Counts {
	if r == nil {
		return Counts{}
	}
	return Counts{Run: r.counts.run.Load(), Blocked: r.counts.blocked.Load(),
		Failed: r.counts.failed.Load(), TimedOut: r.counts.timedOut.Load()}
}

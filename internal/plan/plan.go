package plan

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/untrusted"
)

// Status is a step's state.
type Status string

// The four statuses of a step.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Done       Status = "done"
	Blocked    Status = "blocked"
)

func validStatus(s Status) bool {
	return s == Pending || s == InProgress || s == Done || s == Blocked
}

// Step is one step of the plan.
type Step struct {
	ID     string
	Title  string
	Status Status
	Note   string
}

// Defaults and clamps of the planning config (docs/CONFIG.md, planning.*).
const (
	DefaultMaxSteps       = 12
	DefaultMaxRenderChars = 2000
	maxIDChars            = 32
	maxTitleChars         = 200
	maxNoteChars          = 200
	// blockedStreak transitions to blocked in a row emit plan_blocked.
	blockedStreak = 3
)

// Event names a Change reports; they are the odek.event/v1 types.
const (
	EventCreated = "plan_created"
	EventUpdated = "plan_updated"
	EventBlocked = "plan_blocked"
)

// Change reports one effective mutation (or a blocked streak): counts and
// the version only.
type Change struct {
	Event                                              string
	Version, Steps, Done, InProgress, Blocked, Pending int
}

// Data is the change as odek.event/v1 data for its event type.
func (c Change) Data() map[string]any {
	switch c.Event {
	case EventCreated:
		return map[string]any{"steps": c.Steps, "version": c.Version}
	case EventBlocked:
		return map[string]any{"steps": c.Steps, "blocked": c.Blocked, "version": c.Version}
	default:
		return map[string]any{"steps": c.Steps, "done": c.Done, "in_progress": c.InProgress,
			"blocked": c.Blocked, "pending": c.Pending, "version": c.Version}
	}
}

// Options configure a Plan.
type Options struct {
	MaxSteps       int          // steps a create may have; 0 = 12, clamped to 1..50
	MaxRenderChars int          // step lines rendered; 0 = 2000, clamped to 200..8000
	OnChange       func(Change) // called for each change, in version order, under the plan's lock
}

// Plan is the plan tool and its state. Use New; a Plan is safe for
// concurrent calls.
type Plan struct {
	o       Options
	mu      sync.Mutex
	version int
	steps   []Step
	nonce   string // the untrusted wrapper's nonce of this version
	streak  int    // consecutive transitions to blocked
	msg     string // rendered message of this version
}

// New returns an empty plan.
func New(o Options) *Plan {
	o.MaxSteps = clamp(o.MaxSteps, DefaultMaxSteps, 1, 50)
	o.MaxRenderChars = clamp(o.MaxRenderChars, DefaultMaxRenderChars, 200, 8000)
	return &Plan{o: o}
}

func clamp(v, def, lo, hi int) int {
	if v == 0 {
		v = def
	}
	return max(lo, min(v, hi))
}

// args is the tool's input.
type args struct {
	Verb    string                       `json:"verb"`
	Steps   []struct{ ID, Title string } `json:"steps"`
	Updates []struct {
		ID     string  `json:"id"`
		Status *string `json:"status"`
		Note   *string `json:"note"`
	} `json:"updates"`
	StepID string `json:"step_id"`
}

// Call runs one verb. The result is the rendered plan (and a hint when
// steps keep getting blocked); an error is a rejected call.
func (p *Plan) Call(_ context.Context, raw json.RawMessage) (string, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", errorf("parse args: %v", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch a.Verb {
	case "create":
		return p.create(a)
	case "update":
		return p.update(a)
	case "complete":
		return p.complete(a.StepID)
	case "get":
		if len(p.steps) == 0 {
			return "No active plan.", nil
		}
		return p.msg, nil
	default:
		return "", errorf("unknown verb %q (want create/update/complete/get)", a.Verb)
	}
}

func (p *Plan) create(a args) (string, error) {
	if n := len(a.Steps); n < 1 || n > p.o.MaxSteps {
		return "", errorf("create wants 1..%d steps, got %d", p.o.MaxSteps, n)
	}
	steps := make([]Step, len(a.Steps))
	seen := map[string]bool{}
	for i, s := range a.Steps {
		st := Step{ID: strings.TrimSpace(s.ID), Title: clean(s.Title), Status: Pending}
		if err := checkStep(i, st, seen); err != nil {
			return "", err
		}
		steps[i] = st
	}
	p.steps, p.streak = steps, 0
	p.bump(EventCreated)
	return p.msg, nil
}

// checkStep validates one step of a create (or of a restored plan).
func checkStep(i int, s Step, seen map[string]bool) error {
	switch n := utf8.RuneCountInString(s.ID); {
	case n == 0:
		return errorf("step[%d]: id is required", i)
	case n > maxIDChars:
		return errorf("step[%d]: id is too long (%d > %d chars)", i, n, maxIDChars)
	case strings.IndexFunc(s.ID, badIDRune) >= 0:
		return errorf("step[%d]: id must be a short token without whitespace or brackets", i)
	case seen[s.ID]:
		return errorf("step[%d]: duplicate step id %q", i, s.ID)
	}
	seen[s.ID] = true
	switch n := utf8.RuneCountInString(s.Title); {
	case n == 0:
		return errorf("step[%d]: title is required", i)
	case n > maxTitleChars:
		return errorf("step[%d]: title is too long (%d > %d chars)", i, n, maxTitleChars)
	}
	return nil
}

func badIDRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
		r == '[' || r == ']' || r == '<' || r == '>' || r == utf8.RuneError
}

// clean one-lines a title or note: newlines and other controls become
// spaces and the em dash, the render's separator, becomes a hyphen.
func clean(s string) string {
	s = untrusted.OneLine(s, 0)
	s = strings.ReplaceAll(s, "—", "-")
	return strings.Join(strings.Fields(s), " ")
}

func (p *Plan) update(a args) (string, error) {
	if len(a.Updates) == 0 {
		return "", errorf("update: no updates given")
	}
	steps := append([]Step(nil), p.steps...)
	streak := p.streak
	blocked := false
	changed := false
	for i, u := range a.Updates {
		k := p.index(u.ID)
		if k < 0 {
			return "", errorf("update: unknown step id %q", u.ID)
		}
		if u.Status != nil && *u.Status != "" {
			st := Status(*u.Status)
			if !validStatus(st) {
				return "", errorf("update: step[%d]: unknown status %q", i, *u.Status)
			}
			if st != steps[k].Status {
				steps[k].Status, changed = st, true
				streak, blocked = nextStreak(streak, st, blocked)
			}
		}
		if u.Note != nil {
			note := clean(*u.Note)
			if n := utf8.RuneCountInString(note); n > maxNoteChars {
				return "", errorf("update: step[%d]: note is too long (%d > %d chars)", i, n, maxNoteChars)
			}
			if note != steps[k].Note {
				steps[k].Note, changed = note, true
			}
		}
	}
	if !changed {
		return "No change.\n" + p.msg, nil
	}
	p.steps, p.streak = steps, streak
	return p.afterTransition(blocked), nil
}

// nextStreak counts transitions to blocked in a row; reaching the streak
// resets it and reports it.
func nextStreak(streak int, st Status, fired bool) (int, bool) {
	if st != Blocked {
		return 0, fired
	}
	if streak+1 >= blockedStreak {
		return 0, true
	}
	return streak + 1, fired
}

func (p *Plan) complete(id string) (string, error) {
	k := p.index(id)
	if k < 0 {
		return "", errorf("complete: unknown step id %q", id)
	}
	if p.steps[k].Status == Done {
		return "No change.\n" + p.msg, nil
	}
	p.steps = append([]Step(nil), p.steps...)
	p.steps[k].Status = Done
	p.streak = 0
	return p.afterTransition(false), nil
}

// decomposeHint follows a result when steps keep getting blocked.
const decomposeHint = "\n\nThree plan steps in a row were marked blocked. Break the blocked work into " +
	"smaller steps (plan create with a revised list) or change the approach before going on."

func (p *Plan) afterTransition(blocked bool) string {
	p.bump(EventUpdated)
	if !blocked {
		return p.msg
	}
	p.report(EventBlocked)
	return p.msg + decomposeHint
}

func (p *Plan) index(id string) int {
	for i, s := range p.steps {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// bump starts a new version: new nonce, new rendering, one Change.
func (p *Plan) bump(event string) {
	p.version++
	p.nonce = untrusted.NewNonce()
	p.msg = render(p.version, p.nonce, p.steps, p.o.MaxRenderChars)
	p.report(event)
}

func (p *Plan) report(event string) {
	if p.o.OnChange == nil {
		return
	}
	c := counts(p.steps)
	c.Event, c.Version = event, p.version
	p.o.OnChange(c)
}

func counts(steps []Step) Change {
	c := Change{Steps: len(steps)}
	for _, s := range steps {
		switch s.Status {
		case Done:
			c.Done++
		case InProgress:
			c.InProgress++
		case Blocked:
			c.Blocked++
		default:
			c.Pending++
		}
	}
	return c
}

// Message is the plan's system message, "" while there is no plan.
func (p *Plan) Message() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.msg
}

// Version is the current version (0: no plan yet).
func (p *Plan) Version() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.version
}

// Steps returns a copy of the steps.
func (p *Plan) Steps() []Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Step(nil), p.steps...)
}

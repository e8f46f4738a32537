package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/risk"
)

// Decision is what the policy does with a call.
type Decision int

// Decisions, least strict first.
const (
	Allow Decision = iota
	Prompt
	Deny
)

func (d Decision) String() string { return [...]string{"allow", "prompt", "deny"}[d] }

func parseDecision(s string) (Decision, bool) {
	switch s {
	case "allow":
		return Allow, true
	case "prompt":
		return Prompt, true
	case "deny":
		return Deny, true
	}
	return Deny, false
}

// Defaults are docs/TOOLS.md's decisions per class.
var Defaults = map[risk.Class]Decision{
	risk.Safe: Allow, risk.LocalWrite: Allow, risk.SystemWrite: Prompt, risk.Destructive: Deny,
	risk.NetworkEgress: Prompt, risk.CodeExecution: Prompt, risk.Install: Prompt, risk.Unknown: Deny,
	risk.Blocked: Deny,
}

// ShellTool is the tool whose invocations (command lines) allowlist rules
// are matched against.
const ShellTool = "shell"

// Config is the `dangerous` section: Action answers prompts (allow, deny, or
// prompt = ask), NonInteractive answers them without a terminal (allow, deny,
// read_only), Classes overrides the per-class decisions, Allowlist and
// Denylist hold exact invocations (a shell command, a path, or
// "<tool> <path>"); the denylist also takes bare tool names. An allowlist
// entry made of plain words ("make test", "go test *") is also a rule on
// the parsed shell command (risk.CommandRule): it allows a command line
// only when every part of it is covered by some rule.
type Config struct {
	Action         string
	NonInteractive string
	Classes        map[string]string
	// Defaulted names the classes of Classes whose decision is only the
	// default (no setting named them): a class the sandbox contains may
	// relax those under Contained.Force. A class absent from Classes is a
	// default too.
	Defaulted []string
	Allowlist []string
	Denylist  []string
}

// Call is one tool call as the policy sees it.
type Call struct {
	Tool     string
	Args     json.RawMessage
	Risk     risk.Assessment
	Assessed bool
	// HookAsk is a PreToolUse hook's reason for wanting the operator's
	// approval: a call the policy would allow (or prompt for) is asked
	// about at the terminal, and denied where there is none; a deny holds.
	HookAsk string
}

// Answer is the operator's reply to a prompt.
type Answer int

// Answers a prompt can get.
const (
	AnswerDeny Answer = iota
	AnswerOnce
	AnswerTrustClass // approve, and every later call of this class in this run
)

// Question is what a prompt shows.
type Question struct {
	Tool    string
	What    string
	Class   risk.Class // the class that needs the answer
	Reason  string
	Classes []risk.Class
	Args    json.RawMessage
	Dir     string
	Details bool // show the full details up front (repeated approvals)
	// Hook: a PreToolUse hook asked for this question. Only yes or no
	// answers it: no trust is taken from it, and no answer given before
	// may stand in for it.
	Hook bool
}

// Asker asks the operator. nil means there is nobody to ask.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Outcome reports a decision the operator should see (denials).
type Outcome struct {
	Call       Call
	Class      risk.Class
	Why        string
	ByOperator bool // answered no at the prompt
}

// Options build a Policy.
type Options struct {
	Config Config
	Asker  Asker  // nil: no terminal
	Dir    string // shown in prompt details
	// OnDeny is told about every denial (the CLI prints it on stderr).
	OnDeny func(Outcome)
	// Contained are the classes an OS sandbox holds for some tools.
	Contained Contained
	Now       func() time.Time
}

// Contained says which classes the kernel contains for calls of Tools (the
// shell under the sandbox): such a class needs no prompt — its prompt
// decision becomes allow. With Force (--full-auto) the class is allowed
// even where it would be denied by default; a deny that dangerous.classes
// names explicitly still holds.
type Contained struct {
	Tools   []string
	Classes risk.Set
	Force   bool
}

// Policy decides on calls; safe for concurrent use. Prompts are asked one at
// a time.
type Policy struct {
	o          Options
	action     Decision
	nonInter   string
	classes    map[risk.Class]Decision
	allow, den map[string]bool
	rules      []risk.CommandRule // the allowlist entries that are command rules

	ask       sync.Mutex // one prompt at a time
	mu        sync.Mutex
	trusted   risk.Set
	approvals map[risk.Class][]time.Time
}

// frictionWindow and frictionCount: after this many approvals of one class
// within the window, the next prompt shows the full details first.
const (
	frictionWindow = 60 * time.Second
	frictionCount  = 3
)

// New checks the settings and builds the policy.
func New(o Options) (*Policy, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	p := &Policy{o: o, classes: map[risk.Class]Decision{}, allow: set(o.Config.Allowlist), den: set(o.Config.Denylist),
		approvals: map[risk.Class][]time.Time{}}
	for _, e := range o.Config.Allowlist {
		if r, ok := risk.ParseCommandRule(e); ok {
			p.rules = append(p.rules, r)
		}
	}
	var ok bool
	if p.action, ok = parseDecision(or(o.Config.Action, "prompt")); !ok {
		return nil, fmt.Errorf("%w.action: unknown value %q (want allow, prompt or deny)", ErrConfig, o.Config.Action)
	}
	switch p.nonInter = or(o.Config.NonInteractive, "deny"); p.nonInter {
	case "allow", "deny", "read_only":
	default:
		return nil, fmt.Errorf("%w.non_interactive: unknown value %q (want allow, deny or read_only)", ErrConfig, o.Config.NonInteractive)
	}
	for c, d := range Defaults {
		p.classes[c] = d
	}
	for name, v := range o.Config.Classes {
		c, known := risk.ParseClass(name)
		d, valid := parseDecision(v)
		if !valid {
			return nil, fmt.Errorf("%w.classes.%s: unknown value %q (want allow, prompt or deny)", ErrConfig, name, v)
		}
		if known {
			p.classes[c] = d
		}
	}
	return p, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[strings.TrimSpace(s)] = true
	}
	return m
}

// Check decides on one call: nil runs it, a *DeniedError refuses it, and
// ctx's error ends a prompt the run was interrupted in.
func (p *Policy) Check(ctx context.Context, c Call) error {
	d, class, why := p.resolve(c)
	byOperator := false
	var err error
	switch {
	case d != Deny && c.HookAsk != "":
		if d, why, byOperator, err = p.hookPrompt(ctx, c, class); err != nil {
			return err
		}
	case d == Prompt:
		if d, why, byOperator, err = p.prompt(ctx, c, class); err != nil {
			return err
		}
	}
	if d == Allow {
		return nil
	}
	e := &DeniedError{Tool: c.Tool, What: c.Risk.What, Class: class, Why: why, ByOperator: byOperator}
	if p.o.OnDeny != nil {
		p.o.OnDeny(Outcome{Call: c, Class: class, Why: why, ByOperator: byOperator})
	}
	return e
}

// resolve is the decision before anyone is asked.
func (p *Policy) resolve(c Call) (Decision, risk.Class, string) {
	what := strings.TrimSpace(c.Risk.What)
	listed := func(m map[string]bool) bool {
		return m[what] && what != "" || m[c.Tool+" "+what]
	}
	if !c.Assessed {
		if p.den[c.Tool] {
			return Deny, risk.Unknown, "the tool is on dangerous.denylist"
		}
		return Allow, risk.Unknown, "approved when it was registered"
	}
	if c.Risk.Set.Has(risk.Blocked) || c.Risk.Class == risk.Blocked {
		return Deny, risk.Blocked, "blocked operations never run: " + c.Risk.Reason
	}
	if p.den[c.Tool] || listed(p.den) {
		return Deny, c.Risk.Class, "the invocation is on dangerous.denylist"
	}
	if listed(p.allow) {
		return Allow, c.Risk.Class, "the invocation is on dangerous.allowlist"
	}
	if c.Tool == ShellTool {
		if r, ok := risk.MatchRules(what, p.rules); ok {
			return Allow, c.Risk.Class, fmt.Sprintf("dangerous.allowlist rule %q covers every part of the command", r.String())
		}
	}
	d, class := p.strictest(c.Tool, c.Risk)
	if d == Allow && p.o.Asker == nil && p.nonInter == "read_only" && !c.Risk.Inspect {
		return Deny, class, `no terminal, and dangerous.non_interactive is "read_only": only inspection runs`
	}
	if d == Deny {
		return Deny, class, fmt.Sprintf("dangerous.classes.%s is deny: %s", class, c.Risk.Reason)
	}
	return d, class, c.Risk.Reason
}

// strictest is the strictest decision of any class of the call, and the
// most severe class that has it.
func (p *Policy) strictest(tool string, a risk.Assessment) (Decision, risk.Class) {
	s := a.Set
	if s == 0 {
		s = risk.Of(a.Class)
	}
	best, class := Allow, a.Class
	contained := slices.Contains(p.o.Contained.Tools, tool)
	for _, c := range s.List() {
		d, ok := p.classes[c]
		if !ok {
			d = Deny
		}
		if contained && p.o.Contained.Classes.Has(c) {
			d = p.containedDecision(c, d)
		}
		if d >= best {
			best, class = d, c
		}
	}
	return best, class
}

// containedDecision is a contained class's decision: a prompt is allowed;
// with Force so is a default deny, but not one dangerous.classes names.
func (p *Policy) containedDecision(c risk.Class, d Decision) Decision {
	switch {
	case d == Prompt:
		return Allow
	case d == Deny && p.o.Contained.Force && p.defaulted(c):
		return Allow
	}
	return d
}

// defaulted reports whether c's decision is the default rather than one a
// setting named (Config.Defaulted).
func (p *Policy) defaulted(c risk.Class) bool {
	name := c.String()
	_, named := p.o.Config.Classes[name]
	return !named || slices.Contains(p.o.Config.Defaulted, name)
}

// prompt resolves a Prompt decision: by dangerous.action, by a class the
// operator trusted for this run, by asking, or — with nobody to ask — by
// dangerous.non_interactive.
func (p *Policy) prompt(ctx context.Context, c Call, class risk.Class) (d Decision, why string, byOperator bool, err error) {
	switch p.action {
	case Allow:
		return Allow, "", false, nil
	case Deny:
		return Deny, `dangerous.action is "deny": ` + c.Risk.Reason, false, nil
	}
	if p.isTrusted(c) {
		return Allow, "", false, nil
	}
	if p.o.Asker == nil {
		switch {
		case p.nonInter == "allow":
			return Allow, "", false, nil
		case p.nonInter == "read_only" && c.Risk.Inspect:
			return Allow, "", false, nil
		}
		return Deny, fmt.Sprintf("no terminal to ask, and dangerous.non_interactive is %q: %s", p.nonInter, c.Risk.Reason), false, nil
	}
	p.ask.Lock()
	defer p.ask.Unlock()
	if p.isTrusted(c) { // trusted while this call waited for the prompt
		return Allow, "", false, nil
	}
	answered := liveness.Prompt(ctx) // a person is asked: no stall until the answer
	ans, err := p.o.Asker.Ask(ctx, Question{
		Tool: c.Tool, What: c.Risk.What, Class: class, Reason: c.Risk.Reason, Classes: c.Risk.Set.List(),
		Args: c.Args, Dir: p.o.Dir, Details: p.friction(class),
	})
	answered()
	if err != nil {
		return Deny, "", false, err
	}
	switch ans {
	case AnswerOnce:
		p.approved(class)
		return Allow, "", false, nil
	case AnswerTrustClass:
		p.approved(class)
		p.trust(c)
		return Allow, "", false, nil
	}
	return Deny, "the operator answered no at the prompt", true, nil
}

// hookPrompt asks the operator about a call a PreToolUse hook wants
// approved. Neither dangerous.action, nor non_interactive, nor a class
// trusted earlier answers it: the hook asked for a person, and without a
// terminal there is none, so the call is denied.
func (p *Policy) hookPrompt(ctx context.Context, c Call, class risk.Class) (d Decision, why string, byOperator bool, err error) {
	if p.o.Asker == nil {
		return Deny, "a PreToolUse hook asks the operator to approve the call, and there is no terminal to ask: " + c.HookAsk, false, nil
	}
	p.ask.Lock()
	defer p.ask.Unlock()
	ans, err := p.o.Asker.Ask(ctx, Question{
		Tool: c.Tool, What: c.Risk.What, Class: class, Reason: "a PreToolUse hook asks: " + c.HookAsk,
		Classes: c.Risk.Set.List(), Args: c.Args, Dir: p.o.Dir, Details: true, Hook: true,
	})
	if err != nil {
		return Deny, "", false, err
	}
	if ans == AnswerDeny {
		return Deny, "the operator answered no at the prompt a PreToolUse hook asked for", true, nil
	}
	return Allow, "", false, nil
}

// promptClasses are the classes of a call that need an answer.
func (p *Policy) promptClasses(c Call) risk.Set {
	var s risk.Set
	for _, cl := range c.Risk.Set.List() {
		if p.classes[cl] == Prompt {
			s |= risk.Of(cl)
		}
	}
	return s
}

func (p *Policy) isTrusted(c Call) bool {
	need := p.promptClasses(c)
	p.mu.Lock()
	defer p.mu.Unlock()
	return need != 0 && need&^p.trusted == 0
}

func (p *Policy) trust(c Call) {
	p.mu.Lock()
	p.trusted |= p.promptClasses(c)
	p.mu.Unlock()
}

// approved records an approval for the friction rule.
func (p *Policy) approved(class risk.Class) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.approvals[class] = append(p.approvals[class], p.o.Now())
}

// friction: after frictionCount approvals of one class within a minute,
// the prompt shows everything before asking again.
func (p *Policy) friction(class risk.Class) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.o.Now()
	recent := slices.DeleteFunc(p.approvals[class], func(t time.Time) bool { return now.Sub(t) > frictionWindow })
	p.approvals[class] = recent
	return len(recent) >= frictionCount
}

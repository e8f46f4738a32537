package hooks

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Spec is one project hook as the operator approves it: what runs, where,
// and on which event and matcher.
type Spec struct {
	Dir     string // the project directory
	Event   Event
	Matcher string
	Handler Handler
}

// Specs lists a config's handlers, in event and file order.
func (c Config) Specs(dir string) []Spec {
	var out []Spec
	for _, e := range Events {
		for _, g := range c[e] {
			for _, h := range g.Hooks {
				out = append(out, Spec{Dir: dir, Event: e, Matcher: g.Matcher, Handler: h})
			}
		}
	}
	return out
}

// Keep returns c with only the handlers keep says yes to (groups left
// without one are dropped).
func (c Config) Keep(dir string, keep func(Spec) bool) Config {
	out := Config{}
	for e, groups := range c {
		for _, g := range groups {
			kept := g
			kept.Hooks = nil
			for _, h := range g.Hooks {
				if keep(Spec{Dir: dir, Event: e, Matcher: g.Matcher, Handler: h}) {
					kept.Hooks = append(kept.Hooks, h)
				}
			}
			if len(kept.Hooks) > 0 {
				out[e] = append(out[e], kept)
			}
		}
	}
	return out
}

// Name is how the operator is shown the hook: `PreToolUse "Bash"`.
func (s Spec) Name() string {
	m := s.Matcher
	if m == "" {
		m = "*"
	}
	return string(s.Event) + " " + quote(m)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// Words are the words of a command hook's command line that may name a
// file, with $CLAUDE_PROJECT_DIR and $ODEK_PROJECT_DIR filled in: an
// approval is bound to the content of the project files among them, so a
// repository that edits ./hooks/guard.sh after the operator approved
// "./hooks/guard.sh" is asked about again. Words that hold any other
// expansion are left out; a line bash cannot parse is split at blanks.
func (s Spec) Words() []string {
	if s.Handler.Type != TypeCommand {
		return nil
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(s.Handler.Command), "")
	if err != nil {
		return strings.Fields(s.Handler.Command)
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			lit, ok := s.literal(w.Parts)
			if ok && lit != "" {
				out = append(out, lit)
			}
			return !ok // the words inside an expansion may name files too
		}
		return true
	})
	return out
}

// literal is the value of word parts without expansions, but for the
// project directory's two variables.
func (s Spec) literal(parts []syntax.WordPart) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			inner, ok := s.literal(x.Parts)
			if !ok {
				return "", false
			}
			b.WriteString(inner)
		case *syntax.ParamExp:
			if x.Param == nil || x.Exp != nil || x.Repl != nil || x.Index != nil || x.Length || x.Excl ||
				(x.Param.Value != "CLAUDE_PROJECT_DIR" && x.Param.Value != "ODEK_PROJECT_DIR") {
				return "", false
			}
			b.WriteString(s.Dir)
		default:
			return "", false
		}
	}
	return b.String(), true
}

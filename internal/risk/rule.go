package risk

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// CommandRule is an allow rule on a parsed shell command, as people write
// them in dangerous.allowlist: words that must equal the command's words,
// where "*" inside a word matches any run of characters and a last word
// "*" matches any further arguments (none included). "go test *" allows
// "go test ./..." and "go test -run X ./pkg"; "make test" allows only
// "make test"; "npm run *" allows "npm run lint".
type CommandRule struct {
	text  string
	words []string
	rest  bool // the last word was a lone "*"
}

// ruleMeta are the characters a rule may not hold: a rule names words, it
// is not itself a shell command.
const ruleMeta = "\"'`$\\;&|<>(){}[]?!#~\n\r\t"

// ParseCommandRule reads one allowlist entry as a rule; ok is false when it
// cannot be one (empty, or shell syntax beyond words and "*"): the entry
// then matches only as the exact invocation it has always been.
func ParseCommandRule(entry string) (CommandRule, bool) {
	if strings.ContainsAny(entry, ruleMeta) {
		return CommandRule{}, false
	}
	words := strings.Fields(entry)
	if len(words) == 0 || words[0] == "*" {
		return CommandRule{}, false // a rule names its program
	}
	r := CommandRule{text: strings.Join(words, " "), words: words}
	if words[len(words)-1] == "*" {
		r.words, r.rest = words[:len(words)-1], true
	}
	return r, true
}

// String is the rule as written, spaces normalised.
func (r CommandRule) String() string { return r.text }

// matches reports whether one command's words fit the rule.
func (r CommandRule) matches(argv []string) bool {
	if len(argv) < len(r.words) || !r.rest && len(argv) != len(r.words) {
		return false
	}
	for i, w := range r.words {
		if !wordMatch(w, argv[i]) {
			return false
		}
	}
	return true
}

// wordMatch matches one word against a pattern where "*" is any run of
// characters (slashes included). It backtracks only to the last star, so
// it takes at most len(pattern)*len(s) steps on any input.
func wordMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			mark++
			p, i = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// MatchRules reports the rule that covers cmd, which must be a plain list
// of simple commands (joined by ;, &&, || or |) each of whose words is
// known without running anything and matched by some rule. Anything else
// fails closed and matches nothing: a part no rule covers, a redirection,
// an assignment, a substitution or expansion, a glob, a subshell, a
// function, a background job, a command that does not parse. The rule
// returned is the first that matched the first command.
func MatchRules(cmd string, rules []CommandRule) (CommandRule, bool) {
	if len(rules) == 0 || len(cmd) > maxCommandBytes {
		return CommandRule{}, false
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(cmd), "")
	parsers.Put(p)
	if err != nil || len(f.Stmts) == 0 {
		return CommandRule{}, false
	}
	m := ruleMatcher{rules: rules}
	for _, s := range f.Stmts {
		if !m.stmt(s) {
			return CommandRule{}, false
		}
	}
	return m.first, m.found
}

type ruleMatcher struct {
	rules []CommandRule
	first CommandRule
	found bool
}

func (m *ruleMatcher) stmt(s *syntax.Stmt) bool {
	if s == nil || s.Cmd == nil || len(s.Redirs) > 0 || s.Background || s.Coprocess || s.Negated {
		return false
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		return m.call(x)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe:
			return m.stmt(x.X) && m.stmt(x.Y)
		}
	}
	return false
}

func (m *ruleMatcher) call(x *syntax.CallExpr) bool {
	if len(x.Assigns) > 0 || len(x.Args) == 0 {
		return false
	}
	argv := make([]string, len(x.Args))
	for i, w := range x.Args {
		a := argOf(w)
		if !a.static || strings.Contains(a.s, dynMark) {
			return false
		}
		argv[i] = a.s
	}
	for _, r := range m.rules {
		if r.matches(argv) {
			if !m.found {
				m.first, m.found = r, true
			}
			return true
		}
	}
	return false
}

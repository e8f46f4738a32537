package hooks

import (
	"fmt"
	"regexp"
	"strings"
)

// matcher is a compiled matcher: everything, a set of exact names, or a
// regular expression.
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

// compileMatcher follows Claude Code's rule: "", "*" (or no matcher)
// match everything; a value made only of letters, digits, "_", "-",
// spaces, "," and "|" is a list of exact names; anything else is a regular
// expression (RE2 here, which the usual patterns need no change for),
// unanchored: "^Bash$" for one name exactly.
func compileMatcher(s string) (*matcher, error) {
	if s == "" || s == "*" {
		return &matcher{all: true}, nil
	}
	if literal(s) {
		var names []string
		for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return &matcher{names: names}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid regular expression: %v", s, err)
	}
	return &matcher{re: re}, nil
}

func literal(s string) bool {
	for _, r := range s {
		ok := r == '_' || r == '-' || r == '|' || r == ' ' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// match reports whether any of names (a tool's odek name and its Claude
// Code aliases, or the one value a non-tool event matches on) matches.
func (m *matcher) match(names ...string) bool {
	if m == nil || m.all {
		return true
	}
	for _, n := range names {
		if m.re != nil {
			if m.re.MatchString(n) {
				return true
			}
			continue
		}
		for _, want := range m.names {
			if n == want {
				return true
			}
		}
	}
	return false
}

package config

import "strings"

// Expand substitutes environment references in a config-file string
// (docs/CONFIG.md). ${NAME} and $NAME, where NAME matches
// [A-Za-z_][A-Za-z0-9_]*, become lookup(NAME), or "" when it is unset.
// $$ becomes a literal $. Everything else is kept exactly: a $ followed by a
// character that cannot start a name ("$9.99", "$ 5", "$?"), a lone trailing
// $, and a "${" that does not open a well-formed ${NAME} ("${}", "${x",
// "${a-b}"), after which scanning continues normally. Expand never fails, so
// a price or a shell snippet in a string survives untouched.
//
// Escaping every $ as $$ round-trips: Expand(strings.ReplaceAll(s, "$", "$$"),
// f) == s for any s and f.
func Expand(s string, lookup func(string) (string, bool)) string {
	i := strings.IndexByte(s, '$')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:] // s[0] == '$'
		s = expandOne(&b, s, lookup)
		i = strings.IndexByte(s, '$')
	}
	b.WriteString(s)
	return b.String()
}

// expandOne handles the reference at the start of s (s[0] == '$') and
// returns the unconsumed rest.
func expandOne(b *strings.Builder, s string, lookup func(string) (string, bool)) string {
	if len(s) == 1 {
		b.WriteByte('$')
		return ""
	}
	switch c := s[1]; {
	case c == '$':
		b.WriteByte('$')
		return s[2:]
	case c == '{':
		n := nameLen(s[2:])
		if n > 0 && 2+n < len(s) && s[2+n] == '}' {
			v, _ := lookup(s[2 : 2+n])
			b.WriteString(v)
			return s[3+n:]
		}
		b.WriteString("${")
		return s[2:]
	case isNameStart(c):
		n := nameLen(s[1:])
		v, _ := lookup(s[1 : 1+n])
		b.WriteString(v)
		return s[1+n:]
	default:
		b.WriteByte('$')
		return s[1:]
	}
}

// nameLen is the length of the variable name at the start of s (0 if none).
func nameLen(s string) int {
	if s == "" || !isNameStart(s[0]) {
		return 0
	}
	n := 1
	for n < len(s) && (isNameStart(s[n]) || (s[n] >= '0' && s[n] <= '9')) {
		n++
	}
	return n
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

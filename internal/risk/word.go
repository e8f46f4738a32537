package risk

import (
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// dynMark stands for a part of a word only known at run time.
const dynMark = "\x00"

// arg is one shell word as far as it can be known without running anything.
type arg struct {
	s      string // the value; run-time parts are dynMark
	static bool   // s is exactly what the program receives
	lead   bool   // the word starts with a run-time part
	glob   bool   // an unquoted glob or brace pattern (expands to several words)
}

// argOf reads a word: quotes removed, escapes applied, ANSI-C strings
// decoded; expansions, globs, braces and tildes make it non-static.
func argOf(w *syntax.Word) arg {
	var b strings.Builder
	a := arg{static: true}
	for i, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			v, special := unquotedLit(x.Value, i == 0)
			b.WriteString(v)
			if special {
				a.static, a.glob = false, true
			}
		case *syntax.SglQuoted:
			v := x.Value
			if x.Dollar {
				var ok bool
				if v, ok = decodeANSIC(v); !ok {
					a.static = false
				}
			}
			b.WriteString(v)
		case *syntax.DblQuoted:
			if !dblQuoted(&b, x) {
				a.static = false
			}
		case *syntax.ExtGlob:
			b.WriteString(dynMark)
			a.static, a.glob = false, true
		default: // parameter, command, arithmetic and process substitutions
			b.WriteString(dynMark)
			a.static = false
		}
	}
	a.s = b.String()
	a.lead = strings.HasPrefix(a.s, dynMark)
	return a
}

// dblQuoted appends a double-quoted part; false when it holds an expansion.
func dblQuoted(b *strings.Builder, q *syntax.DblQuoted) bool {
	static := true
	for _, p := range q.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(dblUnescape(l.Value))
			continue
		}
		b.WriteString(dynMark)
		static = false
	}
	return static
}

// unquotedLit applies backslash escapes of unquoted text and reports whether
// it holds an unescaped glob (* ? [), brace pattern or leading tilde.
func unquotedLit(s string, first bool) (string, bool) {
	if !strings.ContainsAny(s, "\\*?[{~") {
		return s, false
	}
	var b strings.Builder
	special := first && strings.HasPrefix(s, "~")
	brace := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		case c == '*' || c == '?' || c == '[':
			special = true
		case c == '{':
			brace = i
		case c == '}' && brace >= 0 && (strings.Contains(s[brace:i], ",") || strings.Contains(s[brace:i], "..")):
			special = true
		}
		b.WriteByte(c)
	}
	return b.String(), special
}

// dblUnescape applies the escapes double quotes honour: \$ \` \" \\ and a
// backslash-newline.
func dblUnescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of a $'…' string; false when an escape is one
// it does not know (the word is then treated as run-time).
func decodeANSIC(s string) (string, bool) {
	if !strings.Contains(s, "\\") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		if c, ok := simpleEscapes()[s[i]]; ok {
			b.WriteByte(c)
			continue
		}
		n, adv, ok := numericEscape(s[i:])
		if !ok {
			return "", false
		}
		if s[i] == 'u' || s[i] == 'U' {
			b.WriteRune(rune(n))
		} else {
			b.WriteByte(byte(n))
		}
		i += adv - 1
	}
	return b.String(), true
}

var simpleEscapes = sync.OnceValue(func() map[byte]byte {
	return map[byte]byte{
		'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11,
		'\\': '\\', '\'': '\'', '"': '"', '?': '?',
	}
})

// numericEscape reads \xHH, \uHHHH, \UHHHHHHHH, \NNN (octal) or \cX at s
// (after the backslash): the value and how many bytes it took.
func numericEscape(s string) (n uint64, adv int, ok bool) {
	digits := func(from, maxN, base int) (uint64, int, bool) {
		end := from
		for end < len(s) && end-from < maxN && isDigit(s[end], base) {
			end++
		}
		if end == from {
			return 0, 0, false
		}
		v, err := strconv.ParseUint(s[from:end], base, 32)
		return v, end, err == nil
	}
	switch s[0] {
	case 'x':
		return digits(1, 2, 16)
	case 'u':
		return digits(1, 4, 16)
	case 'U':
		return digits(1, 8, 16)
	case 'c':
		if len(s) < 2 {
			return 0, 0, false
		}
		return uint64(s[1] & 0x1f), 2, true
	}
	if s[0] >= '0' && s[0] <= '7' {
		return digits(0, 3, 8)
	}
	return 0, 0, false
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '7':
		return true
	case c == '8' || c == '9':
		return base >= 10
	case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		return true
	}
	return false
}

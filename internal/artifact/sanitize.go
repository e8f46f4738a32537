package artifact

import (
	"strings"
	"unicode/utf8"
)

// metaPrefix starts every metadata line; text lines that start with
// mimicPrefix are indented so only real metadata lines carry it.
const (
	metaPrefix  = `- artifact "`
	mimicPrefix = "- artifact "
)

// isHiddenRune reports runes that can fake line structure or reorder what a
// reader sees: controls (C0 except tab and newline, DEL, C1), bidi controls,
// the Unicode line and paragraph separators, and the BOM.
func isHiddenRune(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\n' && r != '\t'
	case r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// cleanText sanitises multi-line result text: hidden runes become spaces, CR
// LF becomes LF and a lone CR a LF, invalid UTF-8 becomes U+FFFD, and then
// lines that start like a metadata line get one leading space. Indenting
// after sanitising matters: "-\x00artifact " only becomes a mimic once the
// NUL is a space.
func cleanText(s string) string {
	return indentMimics(sanitizeText(s))
}

// sanitizeText returns s itself when nothing needs changing, so the common
// case allocates nothing.
func sanitizeText(s string) string {
	var b strings.Builder
	last := 0 // s[last:i] is pending copy once b is in use
	flush := func(i int, repl string) {
		if b.Cap() == 0 {
			b.Grow(len(s) + 64)
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
	}
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			flush(i, "")
		case r == '\r':
			flush(i, "\n")
		case r == utf8.RuneError && size == 1:
			flush(i, "\uFFFD")
		case isHiddenRune(r):
			flush(i, " ")
		default:
			i += size
			continue
		}
		i += size
		last = i
	}
	if b.Cap() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// indentMimics puts one space before every line that starts with
// mimicPrefix, so only odek's own metadata lines start that way.
func indentMimics(s string) string {
	if !strings.HasPrefix(s, mimicPrefix) && !strings.Contains(s, "\n"+mimicPrefix) {
		return s
	}
	s = strings.ReplaceAll(s, "\n"+mimicPrefix, "\n "+mimicPrefix)
	if strings.HasPrefix(s, mimicPrefix) {
		s = " " + s
	}
	return s
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// countMetadataLines counts lines that start with the metadata prefix.
func countMetadataLines(s string) int {
	n := strings.Count(s, "\n"+metaPrefix)
	if strings.HasPrefix(s, metaPrefix) {
		n++
	}
	return n
}

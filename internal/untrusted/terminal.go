package untrusted

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Terminal makes untrusted text safe to write to a terminal while keeping its
// lines: the multi-line companion of OneLine. Newline and tab stay; CR LF
// becomes LF; every other control character (C0, DEL, C1), the bidi controls
// (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) and the line and
// paragraph separators U+2028-U+2029 are made visible as a \uXXXX escape
// (ESC is written `\u001b`), so no escape sequence can move the cursor, set
// the title, write the clipboard or reorder what is shown. Invalid UTF-8
// becomes U+FFFD (a stray 0x9b byte is CSI to an 8-bit terminal). Text that
// needs none of this is returned as it is, without allocating. Where text
// must stay on one line, pass the result through OneLine as well.
func Terminal(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !needsEscape(r, size) {
			i += size
			continue
		}
		break
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// CR LF ends a line the way LF does.
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case needsEscape(r, size):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports runes Terminal rewrites; size tells invalid UTF-8 (a
// one-byte RuneError) from a real U+FFFD.
func needsEscape(r rune, size int) bool {
	switch {
	case r == utf8.RuneError:
		return size == 1
	case r < 0x20:
		return r != '\n' && r != '\t'
	case r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// TerminalLine is Terminal for text shown on one line of a terminal (a tool
// name, a one-line description, an error inside a progress line): escaped,
// then every line break and other control made a space by OneLine.
func TerminalLine(s string) string { return OneLine(Terminal(s), 0) }

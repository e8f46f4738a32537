package untrusted

import (
	"strings"
	"unicode"
)

// OneLine makes an untrusted string safe to show on one line, in a metadata
// line the model reads or in a terminal prompt: every control character
// (C0 and C1, newline and tab included), every format character (bidi
// overrides and isolates, zero-width marks, the BOM) and the Unicode line and
// paragraph separators become a space, and invalid UTF-8 becomes U+FFFD. The
// result is capped at max runes followed by "…"; max <= 0 means no cap.
func OneLine(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s { // ranging yields U+FFFD for invalid UTF-8
		if max > 0 && n == max {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

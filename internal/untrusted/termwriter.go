package untrusted

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// TermWriter is the one way odek's text reaches its stderr, a terminal or a
// log file alike: whatever a message quotes (a path the model chose, a
// server's error, a tool's output), no escape sequence in it acts on the
// operator's terminal. Text passes as Terminal would render it (controls,
// C1, bidi overrides and invalid UTF-8 written visibly), except odek's own
// few sequences: the line redraw of the progress line ("\r\x1b[K") and the
// colours it paints with (SGR 0, 2, 31, 32, 33). Any other escape — OSC 52
// clipboard writes, ESC[2J, a cursor move, a lone CR — is shown, not run.
//
// Each Write is filtered on its own: odek writes every sequence of its own
// in one call, and a sequence split across two writes (text copied in
// chunks) is shown, never completed.
type TermWriter struct{ w io.Writer }

// NewTermWriter returns w behind the filter.
func NewTermWriter(w io.Writer) *TermWriter { return &TermWriter{w: w} }

// ownSGR are the colours odek paints with (cmd's progress view).
var ownSGR = map[string]bool{"0": true, "2": true, "31": true, "32": true, "33": true}

// Write filters p and writes it whole; it reports len(p) on success.
func (t *TermWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, filterTerm(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// filterTerm is TermWriter's rendering of one write.
func filterTerm(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		if n := ownSequence(s[i:]); n > 0 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
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

// ownSequence is the length of the odek sequence s starts with (0: none):
// "\r\x1b[K", "\x1b[K", or "\x1b[<code>m" with an own colour code. A CR
// anywhere else moves the cursor back over what was shown: it is no
// sequence of odek's.
func ownSequence(s string) int {
	switch {
	case strings.HasPrefix(s, "\r\x1b[K"):
		return 4
	case strings.HasPrefix(s, "\x1b[K"):
		return 3
	case !strings.HasPrefix(s, "\x1b["):
		return 0
	}
	end := strings.IndexByte(s, 'm')
	if end < 0 || end > 6 || !ownSGR[s[2:end]] {
		return 0
	}
	return end + 1
}

package untrusted

import (
	"bytes"
	"strings"
	"testing"
)

// TestTermWriter: odek's own redraw and colours pass; every other
// sequence a message could quote is shown, not run.
func TestTermWriter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain line\n", "plain line\n"},
		{"\r\x1b[K\x1b[2m  3s [1] thinking\x1b[0m", "\r\x1b[K\x1b[2m  3s [1] thinking\x1b[0m"},
		{"\x1b[32m✓\x1b[0m shell ok\n", "\x1b[32m✓\x1b[0m shell ok\n"},
		{"path \x1b]52;c;ZWNobyBwd25lZA==\x07 denied\n", `path \u001b]52;c;ZWNobyBwd25lZA==\u0007 denied` + "\n"},
		{"\x1b[2J\x1b[Hcleared", `\u001b[2J\u001b[Hcleared`},
		{"a\rb\x1b[1Ac", `a\u000db\u001b[1Ac`},
		{"\x1b[8mhidden\x1b[0m", `\u001b[8mhidden` + "\x1b[0m"},
		{"\x1b[30;40mblack\x1b[0m", `\u001b[30;40mblack` + "\x1b[0m"},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bad \xff utf8", "bad \ufffd utf8"},
		{"crlf\r\n", "crlf\n"},
		{"\r\x1b[31mnot a redraw", `\u000d` + "\x1b[31mnot a redraw"},
	} {
		var b bytes.Buffer
		n, err := NewTermWriter(&b).Write([]byte(tc.in))
		if err != nil || n != len(tc.in) {
			t.Errorf("Write(%q) = %d, %v", tc.in, n, err)
		}
		if b.String() != tc.want {
			t.Errorf("Write(%q) wrote %q, want %q", tc.in, b.String(), tc.want)
		}
	}
}

// FuzzTermWriter: whatever is written, no ESC, CSI, BEL or CR reaches the
// terminal except in odek's own sequences.
func FuzzTermWriter(f *testing.F) {
	for _, s := range []string{"\x1b]52;c;x\x07", "\r\x1b[K\x1b[2mok\x1b[0m", "\x1b[2J", "a\rb", "\xc2\x9b", "\x1b[31m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		_, _ = NewTermWriter(&b).Write([]byte(s))
		out := b.String()
		for i := 0; i < len(out); i++ {
			if n := ownSequence(out[i:]); n > 0 {
				i += n - 1
				continue
			}
			if c := out[i]; c == 0x1b || c == '\r' && !strings.HasPrefix(out[i:], "\r\n") || c == 0x07 || c < 0x20 && c != '\n' && c != '\t' {
				t.Fatalf("control %#x reached the terminal at %d: %q → %q", c, i, s, out)
			}
		}
		if strings.Contains(out, "\u009b") || strings.Contains(out, "\u202e") {
			t.Fatalf("C1 or bidi control reached the terminal: %q → %q", s, out)
		}
	})
}

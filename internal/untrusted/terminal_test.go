package untrusted

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ttext\nnext line", "plain\ttext\nnext line"},
		{"héllo 世界 \uFFFD", "héllo 世界 \uFFFD"},
		{"\x1b]52;c;ZXZpbA==\x07clip", `\u001b]52;c;ZXZpbA==\u0007clip`},
		{"\x1b]0;title\x1b\\", `\u001b]0;title\u001b\`},
		{"\x1b[2J\x1b[Hcleared", `\u001b[2J\u001b[Hcleared`},
		{"crlf\r\nok\rover", `crlf` + "\n" + `ok\u000dover`},
		{"nul\x00del\x7f", `nul\u0000del\u007f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202eabc\u2066d\u061c", `bidi \u202eabc\u2066d\u061c`},
		{"sep\u2028x", `sep\u2028x`},
		{"bad\x9bbyte", "bad\uFFFDbyte"},
	}
	for _, tt := range tests {
		if got := Terminal(tt.in); got != tt.want {
			t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerminalNoAllocWhenClean(t *testing.T) {
	s := strings.Repeat("clean line\twith tabs\n", 100)
	if n := testing.AllocsPerRun(10, func() { _ = Terminal(s) }); n != 0 {
		t.Fatalf("%v allocations for clean text", n)
	}
}

// No output of Terminal contains a byte a terminal acts on, other than
// newline and tab, and it is valid UTF-8.
func FuzzTerminal(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\r\n\x9b\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		out := Terminal(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range out {
			if needsEscape(r, utf8.RuneLen(r)) && r != utf8.RuneError {
				t.Fatalf("%q kept %U", s, r)
			}
		}
	})
}

// TerminalLine escapes what Terminal escapes and keeps the text on one line.
func TestTerminalLine(t *testing.T) {
	got := TerminalLine("fs__\x1b[2J\nsecond\tline")
	if want := `fs__\u001b[2J second line`; got != want {
		t.Errorf("TerminalLine = %q, want %q", got, want)
	}
}

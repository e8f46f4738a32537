package mcpclient

import (
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/syncbuf"
)

// A server's stderr reaches odek's terminal with its escape sequences made
// visible, even when a line is longer than the read buffer and a rune or a
// CR LF straddles the cut.
func TestStderrSinkSanitises(t *testing.T) {
	long := strings.Repeat("a", 4095)
	tests := []struct{ in, want string }{
		{"\x1b]52;c;cHduZWQ=\x07copied\n", `[p] \u001b]52;c;cHduZWQ=\u0007copied` + "\n"},
		{"title\x1b]0;pwned\x07\r\nnext\x1b[2J\n", `[p] title\u001b]0;pwned\u0007` + "\n" + `[p] next\u001b[2J` + "\n"},
		{long + "é\x1b[H\n", "[p] " + long + `é\u001b[H` + "\n"},
		{long + "\r\nx\n", "[p] " + long + "\n[p] x\n"},
		{long[:4094] + "€x\n", "[p] " + long[:4094] + "€x\n"}, // a 3-byte rune cut after its second byte
		{"no newline at the end\x9b", "[p] no newline at the end\uFFFD"},
	}
	for _, tt := range tests {
		out := &syncbuf.Buffer{}
		s := &stderrSink{w: out, prefix: "[p] "}
		s.drain(strings.NewReader(tt.in))
		if got := out.String(); got != tt.want {
			t.Errorf("drain(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if tail := s.tailString(); strings.ContainsAny(tail, "\x1b\x07\r") {
			t.Errorf("tail keeps controls: %q", tail)
		}
	}
}

// A server's stderr tail keeps its last stderrTailSize bytes: all of them
// at exactly that size, the newest ones beyond it.
func TestStderrTailKeepsTheLastBytes(t *testing.T) {
	body := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteByte("0123456789abcdefghijklmnopqrstuvwxyz"[i%36])
			if i%80 == 79 {
				b.WriteByte('\n')
			}
		}
		return b.String()[:n]
	}
	for _, n := range []int{1, stderrTailSize - 1, stderrTailSize, stderrTailSize + 1, 3*stderrTailSize + 17} {
		in := body(n) + "END"
		s := &stderrSink{prefix: "[p] "} // no writer: discarded, but the tail is kept
		s.drain(strings.NewReader(in))
		want := strings.TrimSpace(in[max(0, len(in)-stderrTailSize):])
		if got := s.tailString(); got != want {
			t.Errorf("%d bytes: tail has %d bytes %.20q…, want %d bytes %.20q…", len(in), len(got), got, len(want), want)
		}
	}
}

package risk

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A long name in a reason text is cut to 80 bytes at most, and never in the
// middle of a rune: the reason reaches events and the model as text.
func TestClipKeepsRunesWhole(t *testing.T) {
	for _, s := range []string{strings.Repeat("é", 60), "x" + strings.Repeat("日", 40), strings.Repeat("a", 81)} {
		got := clip(s)
		if !utf8.ValidString(got) || len(got) > 80 || !strings.HasSuffix(got, "...") {
			t.Errorf("clip(%q) = %q (%d bytes)", s, got, len(got))
		}
	}
	if got := clip("short"); got != "short" {
		t.Errorf("clip(short) = %q", got)
	}
}

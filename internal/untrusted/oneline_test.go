package untrusted

import (
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"a\nb\tc\rd\u2028e\u202ef\uFEFFg", 0, "a b c d e f g"},
		{"c1\u0085x\u200ey\u2066z\u061cw", 0, "c1 x y z w"},
		{"bad\xffutf8", 0, "bad\uFFFDutf8"},
		{"héllo 世界", 3, "hél…"},
		{"abc", 3, "abc"},
		{strings.Repeat("é", 5), 0, strings.Repeat("é", 5)},
		{strings.Repeat("é", 4096+5), 4096, strings.Repeat("é", 4096) + "…"},
		{strings.Repeat("é", 4096), 4096, strings.Repeat("é", 4096)},
	}
	for _, tt := range tests {
		if got := OneLine(tt.in, tt.max); got != tt.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

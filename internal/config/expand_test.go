package config

import (
	"strings"
	"testing"
)

func mapLookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestExpand(t *testing.T) {
	env := mapLookup(map[string]string{"HOME": "/h", "A_1": "x", "EMPTY": "", "D": "$HOME"})
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"${HOME}/bin", "/h/bin"},
		{"$HOME/bin", "/h/bin"},
		{"$A_1$A_1", "xx"},
		{"${A_1}b", "xb"},
		{"$A_1b", ""}, // the name is A_1b, unset
		{"${UNSET}", ""},
		{"$UNSET.x", ".x"},
		{"${EMPTY}", ""},
		{"$$", "$"},
		{"$$HOME", "$HOME"},
		{"$$$HOME", "$/h"},
		{"$9.99", "$9.99"},
		{"cost: $ 5", "cost: $ 5"},
		{"$?", "$?"},
		{"a$", "a$"},
		{"$", "$"},
		{"${x", "${x"},
		{"${", "${"},
		{"${}", "${}"},
		{"${9}", "${9}"},
		{"${a-b}", "${a-b}"},
		{"${x $HOME", "${x /h"},
		{"${HOME", "${HOME"},
		{"$D", "$HOME"}, // values are not expanded again
		{"é$HOME€", "é/h€"},
	}
	for _, tt := range tests {
		if got := Expand(tt.in, env); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "$", "$$", "${A}", "$A", "${", "${}", "$9", "a${b", "x$$y$Z"} {
		f.Add(s)
	}
	lookup := mapLookup(map[string]string{"A": "1", "Z": "$"})
	none := func(string) (string, bool) { return "", false }
	f.Fuzz(func(t *testing.T, s string) {
		out := Expand(s, lookup)
		if !strings.Contains(s, "$") && out != s {
			t.Fatalf("Expand(%q) = %q without any $", s, out)
		}
		if got := Expand(strings.ReplaceAll(s, "$", "$$"), lookup); got != s {
			t.Fatalf("escaped round trip of %q = %q", s, got)
		}
		if n := Expand(s, none); len(n) > len(s) {
			t.Fatalf("Expand(%q) with nothing set grew to %q", s, n)
		}
	})
}

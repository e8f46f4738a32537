package agentrun

import (
	"regexp"
	"strings"
	"testing"
)

// TestCompletable holds the name check to its definition, the regexp it
// replaced: every byte value in every position of short names, and the
// length bounds.
func TestCompletable(t *testing.T) {
	def := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	names := []string{"", "a", "read_file", "demo__word_count", "v1.2-beta", "ünï", "a b", "a\nb", "a/b", "tool\x00",
		strings.Repeat("x", 127), strings.Repeat("x", 128), strings.Repeat("x", 129), strings.Repeat("é", 64)}
	for c := range 256 {
		b := string([]byte{byte(c)})
		names = append(names, b, "a"+b, b+"z", strings.Repeat("y", 127)+b)
	}
	for _, n := range names {
		if got, want := Completable(n), def.MatchString(n); got != want {
			t.Errorf("Completable(%q) = %v, want %v", n, got, want)
		}
	}
}

func TestCutQualified(t *testing.T) {
	for _, tc := range []struct {
		in, server, tool string
		ok               bool
	}{
		{"wc__word_count", "wc", "word_count", true},
		{"a__b__c", "a", "b__c", true},
		{"__x", "", "x", false},
		{"x__", "x", "", false},
		{"plain", "", "", false},
	} {
		s, tl, ok := cutQualified(tc.in)
		if s != tc.server || tl != tc.tool || ok != tc.ok {
			t.Errorf("cutQualified(%q) = %q, %q, %v", tc.in, s, tl, ok)
		}
	}
}

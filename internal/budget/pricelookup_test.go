package budget

import (
	"strings"
	"testing"
)

// TestLookupPriceSuffixGrammar: what counts as a router prefix or a snapshot
// suffix, at the edges of its grammar. A wrong strip prices a model at
// another model's price, so each case names the row it must find, or none.
func TestLookupPriceSuffixGrammar(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ id, want string }{
		// An empty provider before the slash is still a prefix.
		{"/gpt-4o", "gpt-4o"},
		// -MM-DD after a word (no year) strips only -MM-DD: the word stays.
		{"gpt-4o-mini-05-20", "gpt-4o-mini"},
		{"gemini-2.5-pro-preview-09-29", "gemini-2.5-pro"},
		// Every digit counts, 9 too.
		{"gpt-4o-2019-09-19", "gpt-4o"},
		{"o3-2025-09-09", "o3"},
	} {
		if r := LookupPrice(tc.id); r == nil || r.Model != tc.want {
			t.Errorf("LookupPrice(%q) = %v, want %q", tc.id, r, tc.want)
		}
	}
	for _, id := range []string{
		// A date glued to the name, or after another separator, is no suffix.
		"gpt-4o2024-08-06", "gpt-4o-mini_2024-07-18",
		// Letters shaped like -MM-DD are not a date.
		"gpt-4o-ab-cd", "gpt-4o-mini-0x-2y",
		// Short ids ending like a date: nothing to strip them to, no panic.
		"-05-20", "a-05-20", "ab-05-20", "abc-05-20", "abcd-05-20", "-2024-05-20", "1-2", "-1", "@1",
	} {
		if r := LookupPrice(id); r != nil {
			t.Errorf("LookupPrice(%q) = %q, want none", id, r.Model)
		}
	}
}

// TestPriceTableIDsAreNoSuffixes: no id or alias starts with a suffix
// separator, so an id that is nothing but a suffix ("-2024-07-18") can only
// end the lookup with no row, however far it is stripped.
func TestPriceTableIDsAreNoSuffixes(t *testing.T) {
	t.Parallel()
	for _, r := range builtinPrices {
		for _, id := range append([]string{r.Model}, r.Aliases...) {
			if id == "" || strings.ContainsAny(id[:1], "-@/") {
				t.Errorf("row %q: id %q starts with a separator", r.Model, id)
			}
		}
	}
}

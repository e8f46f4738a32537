package errclass

import "testing"

func TestKnownMatchesAll(t *testing.T) {
	if len(All) != 13 {
		t.Fatalf("%d classes, DECISION 9 names 10, issue 22 adds policy_denied and issue 36 stalled and loop_detected", len(All))
	}
	seen := map[string]bool{}
	for _, c := range All {
		if !Known(c) || seen[c] {
			t.Errorf("%q: known=%t duplicate=%t", c, Known(c), seen[c])
		}
		seen[c] = true
	}
	for _, c := range []string{"", "Error", "timeout", "provider-error"} {
		if Known(c) {
			t.Errorf("%q must not be known", c)
		}
	}
}

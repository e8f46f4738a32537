package errclass

import (
	"errors"
	"fmt"
	"testing"
)

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

// Wrap keeps the error's text and chain, adds the class, and leaves nil
// alone.
func TestWrap(t *testing.T) {
	if Wrap(SetupError, nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	inner := errors.New("bad flag")
	err := Wrap(SetupError, fmt.Errorf("run: %w", inner))
	var c interface{ ErrorClass() string }
	if !errors.As(err, &c) || c.ErrorClass() != SetupError {
		t.Fatalf("class of %v: %v", err, c)
	}
	if err.Error() != "run: bad flag" || !errors.Is(err, inner) {
		t.Fatalf("text %q, chain lost: %v", err.Error(), errors.Is(err, inner))
	}
}

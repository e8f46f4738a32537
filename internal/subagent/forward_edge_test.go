package subagent

import (
	"strings"
	"testing"
)

// TestForwardedEventSizeCap: a relayed event of exactly 1 MiB is taken, one
// byte more is dropped, and so is an empty one.
func TestForwardedEventSizeCap(t *testing.T) {
	parent := strings.Repeat("b", 32)
	ok := `{"schema":"odek.event/v1","type":"run_started","run_id":"` + strings.Repeat("a", 32) + `","timestamp":"2026-01-01T00:00:00Z"}`
	pad := func(n int) []byte { return []byte(ok + strings.Repeat(" ", n-len(ok))) }
	if ev := forwardedEvent(pad(1<<20), parent, "t"); ev == nil {
		t.Error("an event of exactly 1 MiB was dropped")
	}
	if ev := forwardedEvent(pad(1<<20+1), parent, "t"); ev != nil {
		t.Error("an event of 1 MiB + 1 byte was taken")
	}
	if ev := forwardedEvent(nil, parent, "t"); ev != nil {
		t.Error("an empty event was taken")
	}
}

// TestEventTypeGrammar: ^[a-z][a-z0-9_]{0,63}$ at each edge of each range.
func TestEventTypeGrammar(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "z": true, "a0": true, "a9": true, "a_": true, "az": true, "aa": true, "zz": true,
		"a" + strings.Repeat("b", 63): true, "a" + strings.Repeat("b", 64): false,
		"": false, "`": false, "{": false, "_a": false, "0a": false, "Aa": false,
		"a`": false, "a{": false, "a/": false, "a:": false, "aA": false, "a-b": false, "ab{": false,
	} {
		if got := isEventType(s); got != want {
			t.Errorf("isEventType(%q) = %v, want %v", s, got, want)
		}
	}
}

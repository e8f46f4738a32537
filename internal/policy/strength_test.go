package policy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/risk"
)

// These tests close survivors of mutation testing (scripts/mutate.sh and
// scripts/hand-mutate.sh): each names the decision it pins.

// A blocked call is denied by either sign of it, the class or the set, and
// no allowlist entry or class setting lets it through.
func TestBlockedByClassOrSet(t *testing.T) {
	cfg := Config{Allowlist: []string{"dd of=/dev/sda"}, Classes: map[string]string{"blocked": "allow", "local_write": "allow"}}
	for name, a := range map[string]risk.Assessment{
		"class only": {Class: risk.Blocked, What: "dd of=/dev/sda", Reason: "raw device"},
		"set only":   {Class: risk.LocalWrite, Set: risk.Of(risk.LocalWrite, risk.Blocked), What: "dd of=/dev/sda", Reason: "raw device"},
	} {
		p := mustNew(t, Options{Config: cfg, Asker: &scripted{answers: []Answer{AnswerOnce}}})
		err := p.Check(context.Background(), Call{Tool: "shell", Assessed: true, Risk: a})
		var de *DeniedError
		if !errors.As(err, &de) || de.Class != risk.Blocked || !strings.HasPrefix(de.Why, "blocked operations never run") {
			t.Errorf("%s: Check = %v (%+v), want a blocked denial", name, err, de)
		}
	}
}

// read_only without a terminal stops writes, but with a terminal it does
// not apply: a local write the classes allow runs without a prompt.
func TestReadOnlyOnlyWithoutATerminal(t *testing.T) {
	ask := &scripted{}
	p := mustNew(t, Options{Config: Config{NonInteractive: "read_only"}, Asker: ask})
	if err := p.Check(context.Background(), call("shell", "rm x", false, risk.LocalWrite)); err != nil {
		t.Fatalf("a local write with a terminal under read_only: %v", err)
	}
	if len(ask.asked) != 0 {
		t.Fatalf("asked %d times for an allowed class", len(ask.asked))
	}
	// Without a terminal a prompt class is denied by the prompt step, which
	// names non_interactive and the call's own reason.
	p = mustNew(t, Options{Config: Config{NonInteractive: "read_only"}})
	err := p.Check(context.Background(), call("shell", "curl x", false, risk.NetworkEgress))
	var de *DeniedError
	if !errors.As(err, &de) || de.Why != `no terminal to ask, and dangerous.non_interactive is "read_only": because` {
		t.Fatalf("Check = %v (%+v)", err, de)
	}
	// And an allowed local write without a terminal is the read_only denial.
	err = p.Check(context.Background(), call("shell", "rm x", false, risk.LocalWrite))
	if !errors.As(err, &de) || !strings.Contains(de.Why, "only inspection runs") {
		t.Fatalf("Check = %v (%+v)", err, de)
	}
}

// Among classes with the same (strictest) decision the most severe one is
// the class reported and asked about.
func TestStrictestNamesTheMostSevereClass(t *testing.T) {
	p := mustNew(t, Options{})
	err := p.Check(context.Background(), call("shell", "curl x > /etc/x", false, risk.NetworkEgress, risk.SystemWrite))
	var de *DeniedError
	if !errors.As(err, &de) || de.Class != risk.SystemWrite {
		t.Fatalf("Check = %v (%+v), want the denial for system_write", err, de)
	}
	ask := &scripted{answers: []Answer{AnswerOnce}}
	p = mustNew(t, Options{Asker: ask})
	_ = p.Check(context.Background(), call("shell", "curl x > /etc/x", false, risk.NetworkEgress, risk.SystemWrite))
	if len(ask.asked) != 1 || ask.asked[0].Class != risk.SystemWrite {
		t.Fatalf("asked %+v, want one question about system_write", ask.asked)
	}
}

// An approval exactly frictionWindow old still counts; one a nanosecond
// older does not.
func TestFrictionWindowEdge(t *testing.T) {
	for _, tc := range []struct {
		age     time.Duration
		details bool
	}{{frictionWindow, true}, {frictionWindow + time.Nanosecond, false}} {
		now := time.Unix(1000, 0)
		ask := &scripted{answers: []Answer{AnswerOnce, AnswerOnce, AnswerOnce, AnswerOnce}}
		p := mustNew(t, Options{Asker: ask, Now: func() time.Time { return now }})
		c := call("shell", "curl x", false, risk.NetworkEgress)
		for range frictionCount {
			if err := p.Check(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}
		now = now.Add(tc.age)
		_ = p.Check(context.Background(), c)
		if got := ask.asked[frictionCount].Details; got != tc.details {
			t.Errorf("approvals %v old: details %v, want %v", tc.age, got, tc.details)
		}
	}
}

// The details name the working directory only when there is one.
func TestDetailsDirectory(t *testing.T) {
	q := Question{Classes: []risk.Class{risk.NetworkEgress}, Args: []byte(`{"a":1}`)}
	if d := details(q); strings.Contains(d, "working directory") {
		t.Errorf("no directory, but details say:\n%s", d)
	}
	q.Dir = "/ws"
	if d := details(q); !strings.Contains(d, "  working directory: /ws\n") {
		t.Errorf("details without the directory:\n%s", d)
	}
	q.Args = []byte(`not json`)
	if d := details(q); !strings.Contains(d, "  arguments:\n    not json\n") {
		t.Errorf("invalid JSON arguments not shown as given:\n%s", d)
	}
}

// A last answer without a newline counts; end of input with nothing typed
// denies and ends the prompt line.
func TestTerminalLastLine(t *testing.T) {
	q := Question{Tool: "shell", What: "curl x", Class: risk.NetworkEgress}
	var out strings.Builder
	if got, err := NewTerminal(strings.NewReader("a"), &out).Ask(context.Background(), q); err != nil || got != AnswerOnce {
		t.Fatalf("\"a\" at end of input: %v, %v; want approve once", got, err)
	}
	out.Reset()
	if got, err := NewTerminal(strings.NewReader(""), &out).Ask(context.Background(), q); err != nil || got != AnswerDeny {
		t.Fatalf("empty input: %v, %v", got, err)
	}
	if !strings.HasSuffix(out.String(), "default d]: \n") {
		t.Fatalf("end of input does not end the prompt line: %q", out.String())
	}
}

// An empty (or blank) allowlist entry allows nothing: a call that names no
// invocation is not on the list.
func TestEmptyAllowlistEntryAllowsNothing(t *testing.T) {
	p := mustNew(t, Options{Config: Config{Allowlist: []string{"", "  "}}})
	err := p.Check(context.Background(), call("mcp_tool", "", false, risk.NetworkEgress))
	var de *DeniedError
	if !errors.As(err, &de) || de.Class != risk.NetworkEgress {
		t.Fatalf("Check = %v, want the network_egress denial", err)
	}
}

// The trust answer trusts the class for the rest of the run: the next call
// of it is not asked about.
func TestTrustAnswerTrustsTheClass(t *testing.T) {
	ask := &scripted{answers: []Answer{AnswerTrustClass}}
	p := mustNew(t, Options{Asker: ask})
	for range 2 {
		if err := p.Check(context.Background(), call("shell", "curl x", false, risk.NetworkEgress)); err != nil {
			t.Fatal(err)
		}
	}
	if len(ask.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(ask.asked))
	}
	if err := p.Check(context.Background(), call("shell", "sudo ls", false, risk.SystemWrite)); err == nil {
		t.Fatal("trusting network_egress trusted system_write")
	}
}

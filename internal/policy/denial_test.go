package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/risk"
)

// A "no" at the prompt says the operator refused, not the configuration;
// every denial carries the policy_denied class, its risk class and reason.
func TestDenialByOperator(t *testing.T) {
	var seen []Outcome
	p := mustNew(t, Options{Asker: &scripted{answers: []Answer{AnswerDeny}}, OnDeny: func(o Outcome) { seen = append(seen, o) }})
	err := p.Check(context.Background(), call("shell", "curl x", false, risk.NetworkEgress))
	var d *DeniedError
	if !errors.As(err, &d) {
		t.Fatalf("a no at the prompt gave %v", err)
	}
	if want := `operation denied by the operator: shell "curl x" (risk: network_egress)`; err.Error() != want {
		t.Errorf("denial reads %q, want %q", err, want)
	}
	if !d.ByOperator || d.ErrorClass() != errclass.PolicyDenied || d.RiskClass() != "network_egress" ||
		d.Reason() != "the operator answered no at the prompt" {
		t.Errorf("denial = %+v (class %q, reason %q)", d, d.RiskClass(), d.Reason())
	}
	if len(seen) != 1 || !seen[0].ByOperator {
		t.Errorf("OnDeny saw %+v, want one denial by the operator", seen)
	}
}

func TestDenialByConfiguration(t *testing.T) {
	p := mustNew(t, Options{})
	err := p.Check(context.Background(), call("shell", "rm -rf /", false, risk.Destructive))
	var d *DeniedError
	if !errors.As(err, &d) || d.ByOperator || !strings.HasPrefix(err.Error(), "operation denied by configuration: ") {
		t.Fatalf("a configured deny gave %v", err)
	}
	if d.ErrorClass() != errclass.PolicyDenied || d.RiskClass() != "destructive" || !strings.HasPrefix(d.Reason(), "dangerous.classes.destructive is deny") {
		t.Errorf("class %q, risk %q, reason %q", d.ErrorClass(), d.RiskClass(), d.Reason())
	}
}

// The reason is one line of at most maxReason runes and an ellipsis.
func TestDenialReasonBounded(t *testing.T) {
	d := &DeniedError{Why: "a\nb\x1b[2J" + strings.Repeat("é", 500)}
	r := d.Reason()
	if strings.ContainsAny(r, "\n\x1b") || len([]rune(r)) != maxReason+1 || !strings.HasSuffix(r, "…") {
		t.Errorf("reason %q (%d runes)", r, len([]rune(r)))
	}
}

package policy

import (
	"context"
	"testing"

	"github.com/odek-run/odek/internal/risk"
)

// TestContained: classes the sandbox contains need no prompt for the tools
// it holds, only for them; Force (--full-auto) also allows a default deny
// but never one dangerous.classes names, nor a class outside the set.
func TestContained(t *testing.T) {
	shellOnly := Contained{Tools: []string{"shell"}, Classes: risk.Of(risk.SystemWrite)}
	full := Contained{Tools: []string{"shell"}, Classes: risk.Of(risk.SystemWrite, risk.CodeExecution, risk.Install, risk.Unknown), Force: true}
	for _, c := range []struct {
		name      string
		contained Contained
		classes   map[string]string
		call      Call
		allowed   bool
	}{
		{"shell system_write contained", shellOnly, nil, call("shell", "cp a ../b", false, risk.SystemWrite), true},
		{"path tool system_write still asks", shellOnly, nil, call("read_file", "../secret", true, risk.SystemWrite), false},
		{"code_execution outside the set asks", shellOnly, nil, call("shell", "python3 -c x", false, risk.CodeExecution), false},
		{"network_egress never contained", full, nil, call("shell", "curl x", false, risk.NetworkEgress), false},
		{"full-auto code_execution", full, nil, call("shell", "python3 -c x", false, risk.CodeExecution), true},
		{"full-auto unknown (default deny)", full, nil, call("shell", "frobnicate", false, risk.Unknown), true},
		{"full-auto keeps an explicit deny", full, map[string]string{"code_execution": "deny"}, call("shell", "python3 -c x", false, risk.CodeExecution), false},
		{"full-auto keeps destructive", full, nil, call("shell", "rm -rf .", false, risk.Destructive), false},
		{"blocked is blocked", full, nil, call("shell", ":(){ :|:& };:", false, risk.Blocked), false},
		{"mixed: a contained class does not hide another", shellOnly, nil, call("shell", "cp a ../b && curl x", false, risk.SystemWrite, risk.NetworkEgress), false},
	} {
		p := mustNew(t, Options{Config: Config{Classes: c.classes}, Contained: c.contained})
		err := p.Check(context.Background(), c.call)
		if (err == nil) != c.allowed {
			t.Errorf("%s: allowed=%v, err=%v", c.name, err == nil, err)
		}
	}
}

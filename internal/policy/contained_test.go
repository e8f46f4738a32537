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
	// Every class filled in, as the CLI's config holds it after Load.
	loaded := map[string]string{"safe": "allow", "local_write": "allow", "system_write": "prompt", "destructive": "deny",
		"network_egress": "prompt", "code_execution": "prompt", "install": "prompt", "unknown": "deny", "blocked": "deny"}
	allDefaults := []string{"safe", "local_write", "system_write", "destructive", "network_egress", "code_execution", "install", "unknown", "blocked"}
	for _, c := range []struct {
		name      string
		contained Contained
		classes   map[string]string
		defaulted []string
		call      Call
		allowed   bool
	}{
		{"shell system_write contained", shellOnly, nil, nil, call("shell", "cp a ../b", false, risk.SystemWrite), true},
		{"path tool system_write still asks", shellOnly, nil, nil, call("read_file", "../secret", true, risk.SystemWrite), false},
		{"code_execution outside the set asks", shellOnly, nil, nil, call("shell", "python3 -c x", false, risk.CodeExecution), false},
		{"network_egress never contained", full, nil, nil, call("shell", "curl x", false, risk.NetworkEgress), false},
		{"full-auto code_execution", full, nil, nil, call("shell", "python3 -c x", false, risk.CodeExecution), true},
		{"full-auto unknown (default deny)", full, nil, nil, call("shell", "frobnicate", false, risk.Unknown), true},
		{"full-auto keeps an explicit deny", full, map[string]string{"code_execution": "deny"}, nil, call("shell", "python3 -c x", false, risk.CodeExecution), false},
		{"full-auto keeps destructive", full, nil, nil, call("shell", "rm -rf .", false, risk.Destructive), false},
		// issue 34: the loaded config holds a decision for every class;
		// Defaulted tells the defaults from what a setting named.
		{"full-auto unknown, defaults filled in", full, loaded, allDefaults, call("shell", "golangci-lint run", false, risk.Unknown), true},
		{"full-auto unknown the operator denied", full, loaded, []string{"code_execution"}, call("shell", "golangci-lint run", false, risk.Unknown), false},
		{"full-auto keeps a named deny of code_execution", full, withClass(loaded, "code_execution", "deny"), []string{"unknown"},
			call("shell", "python3 -c x", false, risk.CodeExecution), false},
		{"full-auto keeps a default destructive", full, loaded, allDefaults, call("shell", "rm -rf .", false, risk.Destructive), false},
		{"without full-auto a default deny holds", Contained{Tools: full.Tools, Classes: full.Classes}, loaded, allDefaults,
			call("shell", "golangci-lint run", false, risk.Unknown), false},
		{"blocked is blocked", full, nil, nil, call("shell", ":(){ :|:& };:", false, risk.Blocked), false},
		{"mixed: a contained class does not hide another", shellOnly, nil, nil, call("shell", "cp a ../b && curl x", false, risk.SystemWrite, risk.NetworkEgress), false},
	} {
		p := mustNew(t, Options{Config: Config{Classes: c.classes, Defaulted: c.defaulted}, Contained: c.contained})
		err := p.Check(context.Background(), c.call)
		if (err == nil) != c.allowed {
			t.Errorf("%s: allowed=%v, err=%v", c.name, err == nil, err)
		}
	}
}

func withClass(m map[string]string, class, decision string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	out[class] = decision
	return out
}

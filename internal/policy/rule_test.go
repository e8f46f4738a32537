package policy

import (
	"context"
	"testing"

	"github.com/odek-run/odek/internal/risk"
)

// Allowlist rules allow a shell command every part of which they cover;
// a compound command with an uncovered part is decided as before.
func TestAllowlistRules(t *testing.T) {
	p := mustNew(t, Options{Config: Config{Allowlist: []string{"go test *", "make test", "npm run *", "/etc/hosts"}}})
	ctx := context.Background()
	for _, c := range []struct {
		tool, cmd string
		classes   []risk.Class
		allowed   bool
	}{
		{"shell", "go test ./...", []risk.Class{risk.CodeExecution}, true},
		{"shell", "go test -race ./internal/...  && make test", []risk.Class{risk.CodeExecution}, true},
		{"shell", "npm run lint", []risk.Class{risk.CodeExecution}, true},
		{"shell", "go test ./... ; curl x", []risk.Class{risk.CodeExecution, risk.NetworkEgress}, false},
		{"shell", "go test ./... && rm -rf ~", []risk.Class{risk.CodeExecution, risk.Destructive}, false},
		{"shell", "go test $(curl x)", []risk.Class{risk.CodeExecution, risk.NetworkEgress}, false},
		{"shell", "make test > /etc/passwd", []risk.Class{risk.CodeExecution, risk.SystemWrite}, false},
		{"shell", "make install", []risk.Class{risk.CodeExecution}, false},
		// Rules are for shell command lines only.
		{"write_file", "go test x", []risk.Class{risk.SystemWrite}, false},
		// Exact entries keep working.
		{"read_file", "/etc/hosts", []risk.Class{risk.SystemWrite}, true},
	} {
		err := p.Check(ctx, call(c.tool, c.cmd, false, c.classes...))
		if (err == nil) != c.allowed {
			t.Errorf("%s %q: err = %v, want allowed=%v", c.tool, c.cmd, err, c.allowed)
		}
	}
}

// A blocked part or a denylisted command beats any rule.
func TestRulesDoNotBeatDenials(t *testing.T) {
	p := mustNew(t, Options{Config: Config{Allowlist: []string{"go test *"}, Denylist: []string{"go test ./secret"}}})
	ctx := context.Background()
	if err := p.Check(ctx, call("shell", "go test ./secret", false, risk.CodeExecution)); err == nil {
		t.Error("a denylisted command ran on a rule")
	}
	if err := p.Check(ctx, call("shell", "go test ./...", false, risk.Blocked)); err == nil {
		t.Error("a blocked command ran on a rule")
	}
}

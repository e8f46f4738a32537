package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/hooks"
)

// The operator's hooks and the project's are kept apart (the project's
// need approval); commands reach the shell as written, with no ${VAR}
// expansion; Claude Code fields odek does not read are warnings.
func TestHooksLayers(t *testing.T) {
	t.Parallel()
	c, w := fixture{
		global:  `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/g.sh ${HOME}", "statusMessage": "x"}]}]}}`,
		project: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "make test", "async": true}]}]}, "no_hooks": true, "max_stop_continuations": 1}`,
		env:     map[string]string{"HOME": "/home/op", "CLAUDE_PROJECT_DIR": "/elsewhere"},
	}.mustLoad(t)
	if got := c.Hooks[hooks.PreToolUse][0].Hooks[0].Command; got != `"$CLAUDE_PROJECT_DIR"/g.sh ${HOME}` {
		t.Errorf("operator command = %q", got)
	}
	if got := c.ProjectHooks[hooks.Stop][0].Hooks[0].Command; got != "make test" || len(c.ProjectHooks) != 1 {
		t.Errorf("project hooks = %+v", c.ProjectHooks)
	}
	if c.NoHooks || c.MaxStopContinuations != 1 {
		t.Errorf("no_hooks %v (a project file cannot set it), max_stop_continuations %d", c.NoHooks, c.MaxStopContinuations)
	}
	all := strings.Join(w, "\n")
	for _, want := range []string{`odek.json: ignoring "hooks.Stop[0].hooks[0].async"`, `odek.json: ignoring "no_hooks": a project file cannot set it`} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	c, _ = fixture{env: map[string]string{"ODEK_NO_HOOKS": "1"}}.mustLoad(t)
	if !c.NoHooks || c.MaxStopContinuations != DefaultMaxStopContinuations || c.Hooks != nil || c.ProjectHooks != nil {
		t.Errorf("defaults: %v %d %v %v", c.NoHooks, c.MaxStopContinuations, c.Hooks, c.ProjectHooks)
	}
}

// A hooks value odek cannot run is a setup error naming the file, the line
// and where in the value; -c cannot set hooks.
func TestHooksErrors(t *testing.T) {
	t.Parallel()
	_, _, err := fixture{project: "{\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"mcp__(\", \"hooks\": []}]}\n}"}.load(t)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(err.Error(), `hooks.PreToolUse[0].matcher: "mcp__(" is not a valid regular expression`) ||
		!errors.Is(err, ErrSetup) {
		t.Fatalf("err = %v", err)
	}
	var o Overrides
	if err := o.SetPair(`hooks={"Stop": []}`); err == nil || !strings.Contains(err.Error(), "set it in a config file") {
		t.Errorf("-c hooks: %v", err)
	}
}

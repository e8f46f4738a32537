package hooks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// claudeBlock is a hooks block as Claude Code's documentation and users'
// settings.json files write it, fields odek does not read included.
const claudeBlock = `{
  "PreToolUse": [
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh", "timeout": 30, "statusMessage": "Checking the command"}]},
    {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "python3 .claude/hooks/check.py"}]}
  ],
  "PostToolUse": [{"matcher": "mcp__github__.*", "hooks": [{"type": "http", "url": "https://audit.example/hook", "headers": {"Authorization": "Bearer $AUDIT_TOKEN"}, "allowedEnvVars": ["AUDIT_TOKEN"], "onFailure": "block"}]}],
  "PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "make test", "async": true}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"}]}]
}`

func TestParseClaudeBlock(t *testing.T) {
	t.Parallel()
	c, warns, err := Parse(json.RawMessage(claudeBlock))
	if err != nil {
		t.Fatal(err)
	}
	pre := c[PreToolUse]
	if len(pre) != 2 || pre[0].Matcher != "Bash" || pre[0].Hooks[0].Timeout != 30*time.Second ||
		pre[0].Hooks[0].Command != `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh` || pre[1].Hooks[0].Timeout != DefaultTimeout {
		t.Errorf("PreToolUse = %+v", pre)
	}
	post := c[PostToolUse][0].Hooks[0]
	if post.Type != TypeHTTP || !post.Block || post.Headers["Authorization"] != "Bearer $AUDIT_TOKEN" ||
		!cmp.Equal(post.AllowedEnvVars, []string{"AUDIT_TOKEN"}) {
		t.Errorf("PostToolUse handler = %+v", post)
	}
	if len(c[Stop]) != 1 {
		t.Errorf("Stop = %+v", c[Stop])
	}
	if _, ok := c[UserPromptSubmit]; ok {
		t.Errorf("a group with only a prompt hook is kept: %+v", c[UserPromptSubmit])
	}
	want := []string{
		`ignoring "hooks.PermissionRequest": odek has no PermissionRequest event`,
		`ignoring "hooks.Stop[0].hooks[0].async": odek runs every hook to its end`,
		`ignoring "hooks.UserPromptSubmit[0].hooks[0]": odek runs hooks of type "command" and "http", not "prompt"`,
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings = %q", warns)
	}
	for i, w := range want {
		if !strings.HasPrefix(warns[i], w) {
			t.Errorf("warning %d = %q, want it to start with %q", i, warns[i], w)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, raw, path string }{
		{"not an object", `[]`, "hooks"},
		{"groups not a list", `{"Stop": {}}`, "hooks.Stop"},
		{"group not an object", `{"Stop": [1]}`, "hooks.Stop[0]"},
		{"no hooks list", `{"Stop": [{"matcher": ""}]}`, "hooks.Stop[0].hooks"},
		{"matcher not a string", `{"PreToolUse": [{"matcher": 1, "hooks": []}]}`, "hooks.PreToolUse[0].matcher"},
		{"bad regex", `{"PreToolUse": [{"matcher": "mcp__(", "hooks": []}]}`, "hooks.PreToolUse[0].matcher"},
		{"no type", `{"Stop": [{"hooks": [{"command": "true"}]}]}`, "hooks.Stop[0].hooks[0].type"},
		{"no command", `{"Stop": [{"hooks": [{"type": "command"}]}]}`, "hooks.Stop[0].hooks[0].command"},
		{"blank command", `{"Stop": [{"hooks": [{"type": "command", "command": "  "}]}]}`, "hooks.Stop[0].hooks[0].command"},
		{"no url", `{"Stop": [{"hooks": [{"type": "http"}]}]}`, "hooks.Stop[0].hooks[0].url"},
		{"file url", `{"Stop": [{"hooks": [{"type": "http", "url": "file:///etc/passwd"}]}]}`, "hooks.Stop[0].hooks[0].url"},
		{"negative timeout", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}`, "hooks.Stop[0].hooks[0].timeout"},
		{"timeout string", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "60"}]}]}`, "hooks.Stop[0].hooks[0].timeout"},
		{"on_error value", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "on_error": "maybe"}]}]}`, "hooks.Stop[0].hooks[0].on_error"},
		{"other shell", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "shell": "powershell"}]}]}`, "hooks.Stop[0].hooks[0].shell"},
		{"duplicate key", `{"Stop": [{"hooks": [{"type": "command", "command": "true", "command": "rm -rf ~"}]}]}`, "hooks.Stop[0].hooks[0]"},
		{"headers not strings", `{"Stop": [{"hooks": [{"type": "http", "url": "http://x", "headers": {"a": 1}}]}]}`, "hooks.Stop[0].hooks[0].headers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := Parse(json.RawMessage(tc.raw))
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Path != tc.path {
				t.Fatalf("Parse(%s) = %v, want a ConfigError at %s", tc.raw, err, tc.path)
			}
			if ce.ErrorClass() != "setup_error" {
				t.Errorf("class %q", ce.ErrorClass())
			}
		})
	}
}

func TestParseFields(t *testing.T) {
	t.Parallel()
	c, warns, err := Parse(json.RawMessage(`{
		"//": "a comment",
		"NoSuchEvent": [],
		"Stop": [{"hooks": [
			{"type": "command", "command": "a", "on_error": "block", "timeout": 0.5},
			{"type": "command", "command": "b", "timeout": 99999, "onFailure": "ignore", "whatever": 1},
			{"type": "command", "command": "c", "timeout": 0}
		], "extra": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	h := c[Stop][0].Hooks
	if !h[0].Block || h[0].Timeout != 500*time.Millisecond || h[1].Block || h[1].Timeout != MaxTimeout || h[2].Timeout != DefaultTimeout {
		t.Errorf("handlers = %+v", h)
	}
	got := strings.Join(warns, "\n")
	for _, w := range []string{`odek knows no hook event "NoSuchEvent"`, "hooks.Stop[0].hooks[1].timeout 99999 exceeds the cap of 3600",
		`"hooks.Stop[0].hooks[1].whatever": odek does not read`, `"hooks.Stop[0].extra": odek reads only`} {
		if !strings.Contains(got, w) {
			t.Errorf("warnings lack %q:\n%s", w, got)
		}
	}
	if c.Empty() {
		t.Error("Empty() on a config with handlers")
	}
	if !(Config{Stop: {{Matcher: "x"}}}).Empty() {
		t.Error("a config with no handler is not Empty")
	}
}

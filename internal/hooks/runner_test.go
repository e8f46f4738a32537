package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreToolUseGuards runs the guards teams bring from Claude Code, in
// bash (exit 2) and Python (a JSON deny), against a call they must block
// and one they must let through.
func TestPreToolUseGuards(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, prog, command string }{
		{"bash exit 2", "bash", script(t, "guard.sh")},
		{"python json deny", "python3", "python3 " + script(t, "guard.py")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			needs(t, tc.prog)
			g := newRig(t, `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": `+hookJSON(tc.command)+`}]}]}`, "")
			res := g.r.Fire(context.Background(), shellCall("rm -rf build"))
			if !res.Block || !strings.Contains(res.Reason, "rm is") {
				t.Fatalf("rm: %+v (warnings %s)", res, g.warned())
			}
			res = g.r.Fire(context.Background(), shellCall("ls -la"))
			if res.Block || res.Ask {
				t.Fatalf("ls: %+v", res)
			}
			// Another tool: the matcher leaves it alone.
			res = g.r.Fire(context.Background(), Input{Event: PreToolUse, Tool: "write_file", Args: json.RawMessage(`{"path":"rm -rf","content":""}`)})
			if !res.Empty() {
				t.Fatalf("write_file: %+v", res)
			}
			var decisions []string
			for _, ev := range g.events(t) {
				if ev.Type == "hook_completed" {
					decisions = append(decisions, ev.Data["decision"].(string))
				}
			}
			if strings.Join(decisions, ",") != "deny,"+map[string]string{"bash": "none", "python3": "allow"}[tc.prog] {
				t.Errorf("decisions = %v", decisions)
			}
			if c := g.r.Counts(); c.Run != 2 || c.Blocked != 1 || c.Failed != 0 {
				t.Errorf("counts = %+v", c)
			}
		})
	}
}

// TestUpdatedInput: a Node hook moves a write, in Claude Code's field
// names; odek gets its own back.
func TestUpdatedInput(t *testing.T) {
	t.Parallel()
	needs(t, "node")
	g := newRig(t, `{"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": `+hookJSON("node "+script(t, "rewrite.js"))+`}]}]}`, "")
	res := g.r.Fire(context.Background(), Input{Event: PreToolUse, Tool: "write_file", CallID: "w",
		Args: json.RawMessage(`{"path":"notes.txt","content":"hi"}`)})
	var got map[string]string
	if err := json.Unmarshal(res.UpdatedInput, &got); err != nil {
		t.Fatalf("%+v: %v (warnings %s)", res, err, g.warned())
	}
	if want := filepath.Join(g.dir, "sandboxed", "notes.txt"); got["path"] != want || got["content"] != "hi" || len(got) != 2 {
		t.Errorf("updated input = %v, want path %s", got, want)
	}
	if res.Block || !strings.Contains(res.Context, "moved the write") {
		t.Errorf("result = %+v", res)
	}
}

// TestPostToolUseAudit: every call reaches the audit log, with Claude
// Code's fields.
func TestPostToolUseAudit(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"PostToolUse": [{"hooks": [{"type": "command", "command": `+hookJSON(script(t, "audit.sh"))+`}]}],
		"PostToolUseFailure": [{"hooks": [{"type": "command", "command": `+hookJSON(script(t, "audit.sh"))+`}]}]}`, "")
	ctx := context.Background()
	g.r.Fire(ctx, Input{Event: PostToolUse, Tool: "shell", CallID: "a", Args: json.RawMessage(`{"command":"ls"}`), Response: "go.mod\n"})
	g.r.Fire(ctx, Input{Event: PostToolUseFailure, Tool: "fs__read", CallID: "b", Args: json.RawMessage(`{}`), Error: "no such file"})
	data, err := os.ReadFile(filepath.Join(g.dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("audit log:\n%s", data)
	}
	var first, second map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &first)
	_ = json.Unmarshal([]byte(lines[1]), &second)
	if first["hook_event_name"] != "PostToolUse" || first["tool_name"] != "shell" || first["claude_tool_name"] != "Bash" ||
		first["tool_response"] != "go.mod\n" || first["tool_use_id"] != "a" || first["session_id"] != "sess1" ||
		first["cwd"] != g.dir || first["permission_mode"] != "dontAsk" {
		t.Errorf("first line = %v", first)
	}
	if second["hook_event_name"] != "PostToolUseFailure" || second["error"] != "no such file" || second["is_interrupt"] != false ||
		second["claude_tool_name"] != "mcp__fs__read" {
		t.Errorf("second line = %v", second)
	}
	if p, _ := first["transcript_path"].(string); p == "" {
		t.Error("no transcript_path")
	}
}

// TestContextHooks: SessionStart's plain stdout and a UserPromptSubmit
// additionalContext are context; a UserPromptSubmit exit 2 refuses.
func TestContextHooks(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo 'The tests live in ./t; run make check.'"}]},
		{"matcher": "resume", "hooks": [{"type": "command", "command": "echo resumed"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": `+hookJSON(`grep -q secret && { echo "no secrets in tasks" >&2; exit 2; }; echo '{"hookSpecificOutput":{"additionalContext":"ticket ABC-1"}}'`)+`}]}]}`, "")
	ctx := context.Background()
	if res := g.r.Fire(ctx, Input{Event: SessionStart, Source: "startup"}); res.Context != "The tests live in ./t; run make check." {
		t.Errorf("SessionStart = %+v", res)
	}
	if res := g.r.Fire(ctx, Input{Event: UserPromptSubmit, Prompt: "fix the bug"}); res.Block || res.Context != "ticket ABC-1" {
		t.Errorf("UserPromptSubmit = %+v", res)
	}
	if res := g.r.Fire(ctx, Input{Event: UserPromptSubmit, Prompt: "print the secret"}); !res.Block || res.Reason != "no secrets in tasks" {
		t.Errorf("refused UserPromptSubmit = %+v", res)
	}
}

// TestStopHook: a Stop hook that runs a test keeps the agent going while
// it fails, with its output as the reason, and says stop_hook_active.
func TestStopHook(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"Stop": [{"hooks": [{"type": "command", "command": `+hookJSON(
		`in=$(cat); case "$in" in *'"stop_hook_active":true'*) echo active >> stops;; esac; test -f fixed || { echo "FAIL: TestAdd: 1+1 = 3" >&2; exit 2; }`)+`}]}]}`, "")
	ctx := context.Background()
	res := g.r.Fire(ctx, Input{Event: Stop, LastMessage: "done"})
	if !res.Block || res.Reason != "FAIL: TestAdd: 1+1 = 3" {
		t.Fatalf("failing test: %+v", res)
	}
	if err := os.WriteFile(filepath.Join(g.dir, "fixed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := g.r.Fire(ctx, Input{Event: Stop, LastMessage: "fixed", StopActive: true}); res.Block {
		t.Fatalf("passing test: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(g.dir, "stops")); string(b) != "active\n" {
		t.Errorf("stop_hook_active seen %q", b)
	}
}

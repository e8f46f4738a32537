package hooks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHangingHookKilled: a hook that never answers is killed at its
// timeout with the child it started, and the call goes on (fail open).
func TestHangingHookKilled(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"PreToolUse": [{"hooks": [{"type": "command", "timeout": 1, "command": `+hookJSON(script(t, "hang.sh")+" .")+`}]}]}`, "")
	start := time.Now()
	res := g.r.Fire(context.Background(), shellCall("ls"))
	if res.Block {
		t.Fatalf("a hung hook blocked: %+v", res)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("Fire took %v", took)
	}
	for _, f := range []string{"hook.pid", "child.pid"} {
		b, err := os.ReadFile(filepath.Join(g.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if !gone(pid, 10*time.Second) {
			t.Errorf("%s %d is still running", f, pid)
		}
	}
	if c := g.r.Counts(); c.TimedOut != 1 || c.Failed != 1 {
		t.Errorf("counts = %+v", c)
	}
	if w := g.warned(); !strings.Contains(w, "killed at its timeout of 1s") {
		t.Errorf("warnings = %q", w)
	}
	for _, ev := range g.events(t) {
		if ev.Type == "hook_completed" && (ev.Data["decision"] != "timeout" || ev.Data["timed_out"] != true) {
			t.Errorf("hook_completed = %v", ev.Data)
		}
	}
}

// TestCrashingGuard: a guard that crashes lets the call through (as Claude
// Code and Codex do) unless it says on_error "block".
func TestCrashingGuard(t *testing.T) {
	t.Parallel()
	needs(t, "python3")
	cmd := hookJSON("python3 " + script(t, "crash.py"))
	for _, tc := range []struct {
		onError string
		block   bool
	}{{"", false}, {`, "on_error": "block"`, true}, {`, "onFailure": "block"`, true}} {
		g := newRig(t, `{"PreToolUse": [{"hooks": [{"type": "command", "command": `+cmd+tc.onError+`}]}]}`, "")
		res := g.r.Fire(context.Background(), shellCall("ls"))
		if res.Block != tc.block {
			t.Errorf("on_error %q: %+v", tc.onError, res)
		}
		if w := g.warned(); !strings.Contains(w, "exit code 1") || !strings.Contains(w, "RuntimeError: guard crashed on shell") {
			t.Errorf("on_error %q: warnings %q", tc.onError, w)
		}
		if tc.block && !strings.Contains(res.Reason, "set to block on error") {
			t.Errorf("reason %q", res.Reason)
		}
	}
}

// TestHostileOutput: 50 MiB on stdout and on stderr, escape sequences in
// a reason and a context: bounded, cleaned, and the hook still counts.
func TestHostileOutput(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": "head -c 52428800 /dev/zero | tr '\\0' x; head -c 52428800 /dev/zero >&2"}]}],
		"PreToolUse": [{"hooks": [{"type": "command", "command": `+hookJSON(`printf 'nope\033[2J\033]0;pwned\007\r\n\u202e' >&2; exit 2`)+`}]}],
		"Stop": [{"hooks": [{"type": "command", "command": `+hookJSON(`printf '%s' '{"decision":"block","reason":"go on\u001b[31m red\u001b[0m\u0007"}'`)+`}]}]}`, "")
	ctx := context.Background()
	res := g.r.Fire(ctx, Input{Event: SessionStart, Source: "startup"})
	if len(res.Context) > maxContextBytes+64 || !strings.HasPrefix(res.Context, "xxxx") || !strings.Contains(res.Context, "more bytes cut") {
		t.Errorf("50 MiB context: %d bytes, %.60q…", len(res.Context), res.Context)
	}
	res = g.r.Fire(ctx, shellCall("ls"))
	if !res.Block || strings.ContainsAny(res.Reason, "\x1b\x07\r\u202e") || !strings.HasPrefix(res.Reason, "nope") {
		t.Errorf("escapes in a reason: %q", res.Reason)
	}
	res = g.r.Fire(ctx, Input{Event: Stop})
	if !res.Block || strings.Contains(res.Reason, "\x1b") || !strings.Contains(res.Reason, "go on") {
		t.Errorf("escapes in a JSON reason: %q", res.Reason)
	}
	if strings.ContainsAny(g.warned(), "\x1b\x07") {
		t.Errorf("escapes in warnings: %q", g.warned())
	}
}

// TestBrokenAnswer: JSON that does not parse is a non-blocking error, or a
// block with on_error "block".
func TestBrokenAnswer(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {'"}]},
		{"matcher": "Write", "hooks": [{"type": "command", "on_error": "block", "command": "echo '{\"decision\": \"maybe\"}'"}]}]}`, "")
	if res := g.r.Fire(context.Background(), shellCall("ls")); res.Block {
		t.Errorf("fail open: %+v", res)
	}
	res := g.r.Fire(context.Background(), Input{Event: PreToolUse, Tool: "write_file", Args: []byte(`{"path":"a","content":""}`)})
	if !res.Block || !strings.Contains(res.Reason, `decision "maybe" is not "block"`) {
		t.Errorf("fail closed: %+v", res)
	}
}

// TestMerge: deny beats ask beats allow; identical commands run once; a
// "continue": false stops the run; the operator's hooks come first.
func TestMerge(t *testing.T) {
	t.Parallel()
	allow := `{"type": "command", "command": "echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\"}}'"}`
	ask := `{"type": "command", "command": "echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"check it\"}}'"}`
	deny := `{"type": "command", "command": "echo '{\"decision\":\"block\",\"reason\":\"old style\"}'"}`
	stop := `{"type": "command", "command": "echo '{\"continue\":false,\"stopReason\":\"quota\"}'"}`
	g := newRig(t, `{"PreToolUse": [{"matcher": "Bash", "hooks": [`+allow+`,`+ask+`]}, {"matcher": "*", "hooks": [`+allow+`]}]}`, "")
	if res := g.r.Fire(context.Background(), shellCall("ls")); !res.Ask || res.Block || res.Reason != "check it" {
		t.Errorf("allow+ask: %+v", res)
	}
	if c := g.r.Counts(); c.Run != 2 {
		t.Errorf("the repeated allow ran twice: %+v", c)
	}
	g = newRig(t, `{"PreToolUse": [{"hooks": [`+ask+`,`+deny+`]}], "PostToolUse": [{"hooks": [`+stop+`]}]}`, "")
	if res := g.r.Fire(context.Background(), shellCall("ls")); !res.Block || res.Ask || res.Reason != "check it\nold style" {
		t.Errorf("ask+deny: %+v", res)
	}
	if res := g.r.Fire(context.Background(), Input{Event: PostToolUse, Tool: "shell"}); !res.Stop || res.StopReason != "quota" {
		t.Errorf("continue false: %+v", res)
	}
}

// TestSubagentFiresOnlyItsCalls: in a sub-agent, session and stop events
// are its parent's SubagentStart and SubagentStop.
func TestSubagentFiresOnlyItsCalls(t *testing.T) {
	t.Parallel()
	g := newRig(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": "echo ctx"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "exit 2"}]}],
		"PreToolUse": [{"hooks": [{"type": "command", "command": "cat > seen.json; exit 2"}]}]}`, "",
		func(o *Options) { o.Subagent, o.AgentID, o.AgentType = true, "t-1", "reviewer" })
	ctx := context.Background()
	if res := g.r.Fire(ctx, Input{Event: SessionStart}); !res.Empty() {
		t.Errorf("SessionStart in a sub-agent: %+v", res)
	}
	if res := g.r.Fire(ctx, Input{Event: Stop}); res.Block {
		t.Errorf("Stop in a sub-agent: %+v", res)
	}
	if res := g.r.Fire(ctx, shellCall("ls")); !res.Block {
		t.Errorf("PreToolUse in a sub-agent: %+v", res)
	}
	b, _ := os.ReadFile(filepath.Join(g.dir, "seen.json"))
	if !strings.Contains(string(b), `"agent_id":"t-1","agent_type":"reviewer"`) {
		t.Errorf("input = %s", b)
	}
}

// gone waits until pid has exited (a zombie whose parent has not reaped it
// counts: it runs nothing), for at most d.
func gone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond) // polling: the exit is the event waited for
	}
}

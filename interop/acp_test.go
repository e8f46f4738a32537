package interop_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
)

// acpRun is what testdata/mcp-npm/acp-client.mjs reports of its session.
type acpRun struct {
	Agent       struct{ Name string } `json:"agent"`
	StopReason  string                `json:"stopReason"`
	Permissions []struct {
		ToolCallID string   `json:"toolCallId"`
		Title      string   `json:"title"`
		Options    []string `json:"options"`
		Approval   bool     `json:"approval"`
	} `json:"permissions"`
	Calls map[string]struct {
		Kind, Status, Text string
	} `json:"calls"`
	Messages  []string `json:"messages"`
	AgentExit struct {
		Code   *int    `json:"code"`
		Signal *string `json:"signal"`
	} `json:"agentExit"`
}

// An ACP client written by others (the ACP TypeScript SDK) drives odek acp:
// it opens a session with its own MCP server (server-everything), approves
// the server's tools when odek asks (every tool of the server, for the
// session), prompts once against the fake model, and answers the one
// permission of the turn (a shell command); the updates show the MCP
// call's result, the command, and the answer, and odek exits 0 when the
// client leaves.
func TestACPTypeScriptClient(t *testing.T) {
	script := requirePeer(t, peerACP)
	everything := requirePeer(t, peerEverything)
	odek := requirePeer(t, peerOdek)
	dir := t.TempDir()
	sc, err := fakellm.ParseScript([]byte(`{"turns": [
	  {"tool_calls": [{"id": "e1", "name": "everything__echo", "arguments": {"message": "hi from acp"}}]},
	  {"match": "Echo: hi from acp", "tool_calls": [{"id": "s1", "name": "shell",
	    "arguments": {"command": "make --version >/dev/null; echo built > built.txt", "description": "build"}}]},
	  {"content": "all done"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakellm.Start(sc, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cmd := exec.Command("node", script, "--agent", odek, "--cwd", dir, "--prompt", "echo, then build",
		"--answer", "allow_once", "--approve", "allow_server", "--mcp-name", "everything", "--mcp-command", everything)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "ODEK_HOME=" + filepath.Join(dir, ".odek"),
		"ODEK_API_KEY=test-key", "ODEK_BASE_URL=" + srv.URL(), "ODEK_MODEL=fake", "LANG=C.UTF-8"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("acp-client.mjs: %v\nstderr:\n%s", err, tail(stderr.String(), 4000))
		}
	case <-time.After(120 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("acp-client.mjs did not finish within 120s\nstderr:\n%s", tail(stderr.String(), 4000))
	}
	var run acpRun
	if err := json.Unmarshal(stdout.Bytes(), &run); err != nil {
		t.Fatalf("acp-client.mjs printed %q: %v\nstderr:\n%s", stdout.String(), err, tail(stderr.String(), 4000))
	}
	if run.Agent.Name != "odek" || run.StopReason != "end_turn" || run.AgentExit.Code == nil || *run.AgentExit.Code != 0 {
		t.Errorf("agent %q, stop reason %q, exit %+v; want odek, end_turn, 0\nstderr:\n%s", run.Agent.Name, run.StopReason, run.AgentExit, tail(stderr.String(), 4000))
	}
	// The first tool's approval, answered "every tool of the server", is the
	// only one; then the command's permission.
	if len(run.Permissions) != 2 || !run.Permissions[0].Approval || !strings.Contains(run.Permissions[0].Title, `MCP server "everything"`) ||
		!slices.Contains(run.Permissions[0].Options, "allow_server") {
		t.Fatalf("permission requests %+v, want the approval of everything's tools first", run.Permissions)
	}
	if cmd := run.Permissions[1]; cmd.Approval || cmd.ToolCallID != "s1" || !slices.Contains(cmd.Options, "allow_once") || !slices.Contains(cmd.Options, "reject") {
		t.Errorf("permission requests %+v, want the second for s1, offering allow_once and reject", run.Permissions)
	}
	if a := run.Calls[run.Permissions[0].ToolCallID]; a.Status != "completed" {
		t.Errorf("the approval's own tool call: %+v, want completed", a)
	}
	if e := run.Calls["e1"]; e.Status != "completed" || !strings.Contains(e.Text, "Echo: hi from acp") || e.Kind != "other" {
		t.Errorf("the MCP call: %+v", e)
	}
	if s := run.Calls["s1"]; s.Status != "completed" || s.Kind != "execute" {
		t.Errorf("the command: %+v", s)
	}
	if !slices.Contains(run.Messages, "all done") {
		t.Errorf("messages %q", run.Messages)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "built.txt")); err != nil || string(b) != "built\n" {
		t.Errorf("built.txt: %q, %v", b, err)
	}
}

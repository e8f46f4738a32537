package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/testbin"
)

// mcpACPClient answers each permission request by decide, and each form
// elicitation with elicitAnswer; the rest is acpClient's.
type mcpACPClient struct {
	*acpClient
	decide       func(sdk.RequestPermissionRequest) string
	elicitAnswer map[string]any
	mu           sync.Mutex
	approvals    []string // the titles of the approval questions, in order
	elicits      []sdk.UnstableCreateElicitationRequest
}

func (c *mcpACPClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	if odek, _ := p.ToolCall.Meta["odek"].(map[string]any); odek["approval"] == true && p.ToolCall.Title != nil {
		c.approvals = append(c.approvals, *p.ToolCall.Title)
	}
	c.mu.Unlock()
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(c.decide(p)))}, nil
}

func (c *mcpACPClient) UnstableCreateElicitation(_ context.Context, p sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	c.elicits = append(c.elicits, p)
	c.mu.Unlock()
	return sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{Action: "accept", Content: c.elicitAnswer}}, nil
}

func (c *mcpACPClient) asked() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.approvals...)
}

// approveAll allows everything for the session: approvals "always" (every
// tool of a server where offered), tool calls once.
func approveAll(p sdk.RequestPermissionRequest) string {
	best := "allow_once"
	for _, o := range p.Options {
		switch {
		case o.OptionId == "allow_server":
			return "allow_server"
		case o.OptionId == "allow_always":
			best = "allow_always"
		}
	}
	if odek, _ := p.ToolCall.Meta["odek"].(map[string]any); odek["approval"] != true {
		return "allow_once"
	}
	return best
}

// lines counts the lines of a file ("" missing: 0).
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// A session's MCP servers — one the client brings, one the project
// defines — start once and serve both of its turns; the project's server
// and hook are approved through session/request_permission, asked once
// ("always" holds for the session), and the hook sees permission_mode
// "default" (the client answers). When the client leaves, the servers are
// gone.
func TestACPServersKeptForTheSession(t *testing.T) {
	t.Parallel()
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	url := fakeModel(t,
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{
			{ID: "e1", Name: "fx__echo", Arguments: callArgs(map[string]string{"text": "one"})},
			{ID: "e2", Name: "proj__echo", Arguments: callArgs(map[string]string{"text": "one"})},
		}},
		fakellm.Turn{Content: "first done"},
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{
			{ID: "e3", Name: "fx__echo", Arguments: callArgs(map[string]string{"text": "two"})},
			{ID: "e4", Name: "proj__echo", Arguments: callArgs(map[string]string{"text": "two"})},
		}},
		fakellm.Turn{Content: "second done"},
	)
	client := &mcpACPClient{acpClient: &acpClient{}, decide: approveAll}
	p := startACP(t, url, "", client)
	starts := filepath.Join(t.TempDir(), "fx-starts")
	projStarts := filepath.Join(p.dir, "proj-starts") // the project's server is sandboxed to the workspace
	project, _ := json.Marshal(map[string]any{
		"mcp_servers": map[string]any{"proj": map[string]any{"command": fixture, "args": []string{"-starts", projStarts}}},
		// A file the hook's command line named would bind its grant to the
		// file's content, which the hook changes: it is reached through $PWD.
		"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": `cat >> "$PWD/hook-input.jsonl"`}}}}},
	})
	if err := os.WriteFile(filepath.Join(p.dir, "odek.json"), project, 0o600); err != nil {
		t.Fatal(err)
	}
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fx", Command: fixture, Args: []string{"-starts", starts}, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr)
	}
	for i := range 2 {
		r := p.prompt(t, resp.SessionId, "echo")
		if r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("turn %d: stop reason %q (meta %v); stderr:\n%s", i+1, r.StopReason, r.Meta, p.stderr)
		}
		if n := len(client.asked()); i == 0 && n != 4 {
			t.Errorf("first turn: %d approval questions %q, want 4 (hook, project server, each server's tools)", n, client.asked())
		}
	}
	if got := client.asked(); len(got) != 4 || !strings.Contains(got[0], "hook") || !strings.Contains(got[1], `"proj"`) {
		t.Errorf("approval questions %q: want the hook's, the project server's and the tools' of the first turn only", got)
	}
	for name, path := range map[string]string{"client's": starts, "project's": projStarts} {
		if n := len(lines(t, path)); n != 1 {
			t.Errorf("the %s server started %d times over two turns, want once", name, n)
		}
	}
	st := client.statuses()
	for _, id := range []sdk.ToolCallId{"e1", "e2", "e3", "e4"} {
		if st[id] != sdk.ToolCallStatusCompleted {
			t.Errorf("%s: %q, want completed; stderr:\n%s", id, st[id], p.stderr)
		}
	}
	hookIn, err := os.ReadFile(filepath.Join(p.dir, "hook-input.jsonl"))
	if err != nil {
		t.Fatalf("the project hook did not run: %v; stderr:\n%s", err, p.stderr)
	}
	if n := strings.Count(string(hookIn), `"permission_mode":"default"`); n != 2 {
		t.Errorf("hook input %s: want permission_mode default in both turns", hookIn)
	}
	p.exitedClean(t)
	for _, path := range []string{starts, projStarts} {
		for _, pid := range lines(t, path) {
			if _, err := os.Stat("/proc/" + pid); err == nil {
				t.Errorf("server process %s outlived odek acp", pid)
			}
		}
	}
}

// An MCP server's form elicitation mid-call reaches a client that declared
// form elicitation, and the client's answer is what the server gets.
func TestACPElicitationReachesTheClient(t *testing.T) {
	t.Parallel()
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	url := fakeModel(t,
		fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{ID: "a1", Name: "fx__ask_name", Arguments: callArgs(map[string]string{})}}},
		fakellm.Turn{Content: "named"},
	)
	client := &mcpACPClient{acpClient: &acpClient{}, decide: approveAll, elicitAnswer: map[string]any{"name": "mona"}}
	p := startACP(t, url, "", client)
	form := &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}
	if _, err := p.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Elicitation: form}}); err != nil {
		t.Fatal(err)
	}
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fx", Command: fixture, Args: []string{"-ask"}, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr)
	}
	if r := p.prompt(t, resp.SessionId, "ask"); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q (meta %v); stderr:\n%s", r.StopReason, r.Meta, p.stderr)
	}
	client.mu.Lock()
	elicits := client.elicits
	client.mu.Unlock()
	if len(elicits) != 1 || elicits[0].Form == nil || elicits[0].Form.Message != "Which name?" {
		t.Fatalf("elicitations %+v; stderr:\n%s", elicits, p.stderr)
	}
	if odek, _ := elicits[0].Form.Meta["odek"].(map[string]any); odek["server"] != "fx" || odek["sessionId"] != string(resp.SessionId) {
		t.Errorf("_meta %v", elicits[0].Form.Meta)
	}
	var result string
	client.acpClient.mu.Lock()
	defer client.acpClient.mu.Unlock()
	for _, u := range client.updates {
		if c := u.ToolCallUpdate; c != nil && c.ToolCallId == "a1" {
			for _, b := range c.Content {
				if b.Content != nil && b.Content.Content.Text != nil {
					result += b.Content.Content.Text.Text
				}
			}
		}
	}
	if !strings.Contains(result, `client said {"action":"accept","content":{"name":"mona"}}`) {
		t.Errorf("the tool's result %q does not carry the client's answer", result)
	}
}

// A rejected project server and a rejected project hook are left out of
// the turn, which runs without them and says so on stderr, as after a
// terminal's "no".
func TestACPProjectApprovalsRejected(t *testing.T) {
	t.Parallel()
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	url := fakeModel(t, fakellm.Turn{Content: "done without them"})
	client := &mcpACPClient{acpClient: &acpClient{}, decide: func(sdk.RequestPermissionRequest) string { return "reject" }}
	p := startACP(t, url, "", client)
	project, _ := json.Marshal(map[string]any{
		"mcp_servers": map[string]any{"proj": map[string]any{"command": fixture}},
		"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": `touch "$PWD/hook-ran"`}}}}},
	})
	if err := os.WriteFile(filepath.Join(p.dir, "odek.json"), project, 0o600); err != nil {
		t.Fatal(err)
	}
	sid := p.newSession(t)
	if r := p.prompt(t, sid, "go"); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q (meta %v); stderr:\n%s", r.StopReason, r.Meta, p.stderr)
	}
	if got := client.asked(); len(got) != 2 {
		t.Errorf("approval questions %q, want the hook's and the server's", got)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "hook-ran")); err == nil {
		t.Error("the rejected hook ran")
	}
	st := client.statuses()
	for _, id := range []sdk.ToolCallId{"odek-approval-1", "odek-approval-2"} {
		if st[id] != sdk.ToolCallStatusFailed {
			t.Errorf("%s: %q, want failed", id, st[id])
		}
	}
	p.exitedClean(t)
	for _, want := range []string{`mcp server "proj" was not approved; running without it`, "was not approved; running without it"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, p.stderr)
		}
	}
}

// A turn whose servers are configured differently (here the project file
// switched a tool off between turns) stops the session's servers and
// starts its own; the next turn keeps those.
func TestACPServersRestartWhenTheConfigChanges(t *testing.T) {
	t.Parallel()
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	echo := fakellm.Turn{ToolCalls: []fakellm.ScriptCall{{ID: "e", Name: "fx__echo", Arguments: callArgs(map[string]string{"text": "x"})}}}
	url := fakeModel(t, echo, fakellm.Turn{Content: "1"}, echo, fakellm.Turn{Content: "2"}, echo, fakellm.Turn{Content: "3"})
	client := &mcpACPClient{acpClient: &acpClient{}, decide: approveAll}
	p := startACP(t, url, "", client)
	starts := filepath.Join(t.TempDir(), "starts")
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fx", Command: fixture, Args: []string{"-starts", starts}, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr)
	}
	for i, want := range []int{1, 2, 2} {
		if i == 1 {
			if err := os.WriteFile(filepath.Join(p.dir, "odek.json"), []byte(`{"tools": {"disabled": ["fx__slow"]}}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if r := p.prompt(t, resp.SessionId, "echo"); r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("turn %d: stop reason %q; stderr:\n%s", i+1, r.StopReason, p.stderr)
		}
		pids := lines(t, starts)
		if len(pids) != want {
			t.Fatalf("after turn %d: %d starts, want %d; stderr:\n%s", i+1, len(pids), want, p.stderr)
		}
		if i == 1 {
			if _, err := os.Stat("/proc/" + pids[0]); err == nil {
				t.Errorf("the first set's server %s still runs after the second turn", pids[0])
			}
		}
	}
}

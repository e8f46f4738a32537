package acp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/mcpclient"
	store "github.com/odek-run/odek/internal/session"
)

// session/load replays the saved conversation before it answers; resume
// opens without replaying; list filters by cwd.
func TestLoadResumeList(t *testing.T) {
	t.Parallel()
	id := "20261206-0123456789abcdef0123456789abcdef"
	r := &fakeRunner{
		history: []llm.Message{
			{Role: llm.RoleSystem, Content: "odek's system prompt"},
			{Role: llm.RoleUser, Content: "what is in main.go?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Function: llm.FunctionCall{Name: "read_file", Arguments: `{"path":"main.go"}`}}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Content: "package main"},
			{Role: llm.RoleAssistant, Content: "a main package"},
		},
		saved: []store.Summary{
			{ID: id, Title: "what is in main.go?", Dir: "/work/proj", UpdatedAt: time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC), Turns: 1},
			{ID: "20261205-0123456789abcdef0123456789abcdef", Title: "elsewhere", Dir: "/work/other"},
		},
	}
	client := &testClient{}
	p := serve(t, r, client)
	ctx := context.Background()
	if _, err := p.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(id), Cwd: "/work/proj", McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, u := range client.got() { // all of them arrived before the load's answer
		b, _ := json.Marshal(u)
		var k struct {
			SessionUpdate string `json:"sessionUpdate"`
		}
		_ = json.Unmarshal(b, &k)
		kinds = append(kinds, k.SessionUpdate)
	}
	want := []string{"user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"}
	if len(kinds) != len(want) {
		t.Fatalf("replayed %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("replayed %v, want %v", kinds, want)
		}
	}
	if got := r.lastOpen().ID; got != id {
		t.Errorf("opened %q, want %q", got, id)
	}
	n := len(client.got())
	if _, err := p.conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: sdk.SessionId(id), Cwd: "/work/proj"}); err != nil {
		t.Fatal(err)
	}
	if len(client.got()) != n {
		t.Errorf("resume replayed the conversation")
	}
	if !closed(r.session(0)) {
		t.Errorf("the session loaded first was not closed when it was opened again")
	}
	cwd := "/work/proj"
	list, err := p.conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &cwd})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != sdk.SessionId(id) || *list.Sessions[0].UpdatedAt != "2026-12-06T01:00:00Z" {
		t.Errorf("list = %+v, want the one session of /work/proj", list.Sessions)
	}
	if _, err := p.conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: sdk.SessionId(id)}); err != nil {
		t.Fatal(err)
	}
	if _, err := prompt(t, p, sdk.SessionId(id), "again"); err == nil {
		t.Error("a prompt to a closed session was taken")
	}
}

func closed(s *fakeSession) bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// The client's MCP servers reach the run side as operator servers: stdio
// with its environment, HTTP with its bearer token as a secret.
func TestClientMCPServers(t *testing.T) {
	t.Parallel()
	r := &fakeRunner{}
	p := serve(t, r, &testClient{})
	p.start(t, sdk.ClientCapabilities{},
		sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "fs", Command: "/usr/bin/fs-mcp", Args: []string{"--root", "."}, Env: []sdk.EnvVariable{{Name: "LEVEL", Value: "2"}}}},
		sdk.McpServer{Http: &sdk.McpServerHttpInline{Name: "docs", Url: "https://mcp.example/mcp", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer s3cret"}}}},
	)
	req := r.lastOpen()
	if len(req.MCPServers) != 2 {
		t.Fatalf("servers %+v, want two", req.MCPServers)
	}
	fs, docs := req.MCPServers[0], req.MCPServers[1]
	if fs.Name != "fs" || fs.Project || fs.Config.Command != "/usr/bin/fs-mcp" || fs.Config.Env["LEVEL"] != "2" || len(fs.Config.Args) != 2 {
		t.Errorf("stdio server %+v", fs)
	}
	if docs.Config.URL != "https://mcp.example/mcp" || docs.Config.TokenEnv == "" || req.Secrets[docs.Config.TokenEnv] != "s3cret" {
		t.Errorf("http server %+v, secrets %v", docs, req.Secrets)
	}
	if req.Cwd != "/work/proj" || req.Asker == nil || req.Elicit != nil {
		t.Errorf("open request %+v: want the cwd, an asker and no elicitor (not declared)", req)
	}
}

func TestConvertServersRefuses(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]sdk.McpServer{
		"other header": {Http: &sdk.McpServerHttpInline{Name: "h", Url: "https://x", Headers: []sdk.HttpHeader{{Name: "X-Key", Value: "k"}}}},
		"other bearer": {Http: &sdk.McpServerHttpInline{Name: "h", Url: "https://x", Headers: []sdk.HttpHeader{{Name: "X-Key", Value: "Bearer k"}}}},
		"bad name":     {Stdio: &sdk.McpServerStdio{Name: "a__b", Command: "x"}},
		"empty name":   {Stdio: &sdk.McpServerStdio{Command: "x"}},
		"sse":          {Sse: &sdk.McpServerSseInline{Name: "s", Url: "https://x"}},
	} {
		if _, _, err := convertServers([]sdk.McpServer{in}); err == nil {
			t.Errorf("%s: converted", name)
		}
	}
	twice := []sdk.McpServer{{Stdio: &sdk.McpServerStdio{Name: "a", Command: "x"}}, {Stdio: &sdk.McpServerStdio{Name: "a", Command: "y"}}}
	if _, _, err := convertServers(twice); err == nil {
		t.Error("a name given twice was converted")
	}
}

// An MCP elicitation reaches the client when it declared form elicitation,
// and its answer comes back.
func TestElicitation(t *testing.T) {
	t.Parallel()
	answers := make(chan mcpclient.ElicitAnswer, 1)
	r := &fakeRunner{turn: func(ctx context.Context, s *fakeSession, _ string, _ Observer) (*TurnResult, error) {
		got, err := s.req.Elicit.Elicit(ctx, mcpclient.Elicitation{Server: "db", Tool: "db__query", Message: "Which database?",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return nil, err
		}
		answers <- got
		return &TurnResult{Termination: "completed"}, nil
	}}
	client := &testClient{elicit: func(p sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse {
		return sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"name": "prod"}}}
	}}
	p := serve(t, r, client)
	form := &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}
	sid := p.start(t, sdk.ClientCapabilities{Elicitation: form})
	if _, err := prompt(t, p, sid, "count rows"); err != nil {
		t.Fatal(err)
	}
	got := <-answers
	if got.Action != "accept" || got.Content["name"] != "prod" {
		t.Errorf("answer %+v, want accept name=prod", got)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	if len(client.elicits) != 1 || client.elicits[0].Form == nil || client.elicits[0].Form.Message != "Which database?" {
		t.Errorf("elicitations %+v", client.elicits)
	}
}

package acp

import (
	"context"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/approval"
)

// What the run side would ask a terminal before a turn (a project server,
// an MCP tool, a project hook) is asked of the client on a tool call of
// its own, marked by the answer; "always" answers the same question for
// the rest of the session, "once" does not.
func TestApprovalsAskTheClient(t *testing.T) {
	t.Parallel()
	spawn := approval.Question{Text: "Project-level MCP server \"db\" wants to run:\n  command: ./db-mcp\n"}
	tool := approval.Question{Text: "MCP tool \"query\" from server \"db\":\n  description: runs SQL\n", AllowServer: true}
	for _, tc := range []struct {
		name   string
		answer string
		q      approval.Question
		want   approval.Answer
		asked  int // by two turns asking the same question
		status sdk.ToolCallStatus
	}{
		{"once", optAllowOnce, spawn, approval.Approve, 2, sdk.ToolCallStatusCompleted},
		{"always", optAllowAlways, spawn, approval.Approve, 1, sdk.ToolCallStatusCompleted},
		{"every tool of the server", optAllowServer, tool, approval.ApproveServer, 1, sdk.ToolCallStatusCompleted},
		{"every tool, not offered", optAllowServer, spawn, approval.Deny, 2, sdk.ToolCallStatusFailed},
		{"reject", optReject, spawn, approval.Deny, 2, sdk.ToolCallStatusFailed},
		{"dismissed", answerDismiss, spawn, approval.Deny, 2, sdk.ToolCallStatusFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			answers := make(chan approval.Answer, 2)
			r := &fakeRunner{turn: func(ctx context.Context, s *fakeSession, _ string, _ Observer) (*TurnResult, error) {
				ans, err := s.req.Confirm.Confirm(ctx, tc.q)
				if err != nil {
					return nil, err
				}
				answers <- ans
				return &TurnResult{Termination: "completed"}, nil
			}}
			client := &testClient{answer: tc.answer}
			p := serve(t, r, client)
			sid := p.start(t, sdk.ClientCapabilities{})
			for range 2 {
				if _, err := prompt(t, p, sid, "go"); err != nil {
					t.Fatal(err)
				}
			}
			if first := <-answers; first != tc.want {
				t.Errorf("answer %v, want %v", first, tc.want)
			}
			perms := client.permissions()
			if len(perms) != tc.asked {
				t.Fatalf("asked %d times, want %d", len(perms), tc.asked)
			}
			pr := perms[0]
			if pr.ToolCall.Title == nil || *pr.ToolCall.Title != approvalTitle(tc.q.Text) || pr.SessionId != sid {
				t.Errorf("request %+v", pr.ToolCall)
			}
			offersServer := false
			for _, o := range pr.Options {
				offersServer = offersServer || o.OptionId == optAllowServer
			}
			if offersServer != tc.q.AllowServer {
				t.Errorf("options %+v", pr.Options)
			}
			var shown, settled bool
			for _, u := range client.got() {
				if c := u.ToolCall; c != nil && c.ToolCallId == pr.ToolCall.ToolCallId {
					shown = c.Status == sdk.ToolCallStatusPending
				}
				if c := u.ToolCallUpdate; c != nil && c.ToolCallId == pr.ToolCall.ToolCallId && c.Status != nil {
					settled = shown && *c.Status == tc.status
				}
			}
			if !shown || !settled {
				t.Errorf("the question's tool call was not shown pending, then %s: %+v", tc.status, client.got())
			}
		})
	}
}

func TestApprovalTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Project-level MCP server \"db\" wants to run:\n  command: x\n": "Project-level MCP server \"db\" wants to run",
		"\n  one line":     "one line",
		"a\x1b[2Jb:\nrest": "a [2Jb", // control characters never reach a title
	} {
		if got := approvalTitle(in); got != want {
			t.Errorf("approvalTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

package acp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/untrusted"
)

// The option a tool's approval adds: every tool of its server.
const optAllowServer = "allow_server"

// approver is a session's approval.Confirmer: what odek asks an operator
// at a terminal before a turn can run — start a project MCP server, offer
// an MCP tool to the model, run a project hook — becomes
// session/request_permission on a tool call of its own (kind other),
// shown before the question and marked completed or failed by the answer.
// "Always" is remembered for the session, by the question's text, which
// names everything the grant covers; nothing is saved (the run side's
// Gate is ephemeral).
type approver struct {
	sid  func() sdk.SessionId
	box  *outbox
	call func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)

	mu     sync.Mutex
	n      int                        // questions asked, for their tool call ids
	always map[string]approval.Answer // answers given "always", by question text
}

var _ approval.Confirmer = (*approver)(nil)

// Confirm asks the client, unless an "always" answered the same question
// earlier in the session. A cancelled outcome declines; a failed request
// or the turn's end is an error (the gate reports it, the turn's setup
// fails).
func (a *approver) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	a.mu.Lock()
	ans, known := a.always[q.Text]
	a.n++
	id := sdk.ToolCallId(fmt.Sprintf("odek-approval-%d", a.n))
	a.mu.Unlock()
	if known {
		return ans, nil
	}
	sid := a.sid()
	a.box.put(sid, sdk.StartToolCall(id, approvalTitle(q.Text), sdk.WithStartKind(sdk.ToolKindOther),
		sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartContent(textContent(q.Text))))
	if err := a.box.flush(ctx); err != nil {
		return approval.Deny, err
	}
	resp, err := a.call(ctx, a.request(sid, id, q))
	if err != nil {
		a.settle(sid, id, approval.Deny)
		if ctx.Err() != nil {
			return approval.Deny, context.Cause(ctx)
		}
		return approval.Deny, fmt.Errorf("%w: %v", errPermission, err)
	}
	ans = approval.Deny
	if sel := resp.Outcome.Selected; sel != nil {
		switch string(sel.OptionId) {
		case optAllowOnce:
			ans = approval.Approve
		case optAllowAlways:
			ans = approval.Approve
			a.remember(q.Text, ans)
		case optAllowServer:
			if q.AllowServer {
				ans = approval.ApproveServer
				a.remember(q.Text, approval.Approve)
			}
		}
	}
	a.settle(sid, id, ans)
	return ans, nil
}

func (a *approver) remember(text string, ans approval.Answer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.always == nil {
		a.always = map[string]approval.Answer{}
	}
	a.always[text] = ans
}

// settle marks the question's tool call by its answer.
func (a *approver) settle(sid sdk.SessionId, id sdk.ToolCallId, ans approval.Answer) {
	st := sdk.ToolCallStatusCompleted
	if ans == approval.Deny {
		st = sdk.ToolCallStatusFailed
	}
	a.box.put(sid, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(st)))
}

// request is the permission request of q: allow once, always for the
// session, every tool of the server (a tool's question), reject.
func (a *approver) request(sid sdk.SessionId, id sdk.ToolCallId, q approval.Question) sdk.RequestPermissionRequest {
	title := approvalTitle(q.Text)
	kind, status := sdk.ToolKindOther, sdk.ToolCallStatusPending
	opts := []sdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowAlways, Name: "Always allow in this session", Kind: sdk.PermissionOptionKindAllowAlways},
	}
	if q.AllowServer {
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowServer, Name: "Allow every tool of this server in this session", Kind: sdk.PermissionOptionKindAllowAlways})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	return sdk.RequestPermissionRequest{SessionId: sid, Options: opts, ToolCall: sdk.ToolCallUpdate{
		ToolCallId: id, Title: &title, Kind: &kind, Status: &status, Content: textContent(q.Text),
		Meta: map[string]any{"odek": map[string]any{"approval": true}},
	}}
}

// approvalTitle is the question's first line: what asks to be approved.
func approvalTitle(text string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return untrusted.OneLine(strings.TrimSuffix(strings.TrimSpace(first), ":"), titleRunes)
}

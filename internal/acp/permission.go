package acp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/untrusted"
)

// The options of a permission request.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optReject      = "reject"
)

// asker is a session's policy.Asker: a call whose class the policy decides
// "prompt" becomes session/request_permission. The policy consults it only
// for prompts, after its denials, so no answer here reaches what the
// configuration denies; the sandbox's refusals come before the gate (path
// tools) or below it (the kernel), so none reaches them either.
type asker struct {
	sid  func() sdk.SessionId
	cwd  string
	box  *outbox
	call func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)

	mu      sync.Mutex
	trusted risk.Set // classes the client allowed "always", for this session
}

var _ policy.Asker = (*asker)(nil)

// Ask asks the client about one call. "Always" is remembered for the
// session only (the policy is told AnswerTrustClass too, and a later call
// whose classes were all allowed always is not asked again). A question a
// PreToolUse hook asked for is always asked, with no "always" option. A
// cancelled request denies, with ctx's error when the turn was cancelled.
func (a *asker) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	need := risk.Of(q.Classes...) | risk.Of(q.Class)
	a.mu.Lock()
	trusted := need&^a.trusted == 0
	a.mu.Unlock()
	if trusted && !q.Hook {
		return policy.AnswerTrustClass, nil
	}
	if err := a.box.flush(ctx); err != nil { // the call's tool_call update first
		return policy.AnswerDeny, err
	}
	resp, err := a.call(ctx, a.request(ctx, q))
	if err != nil {
		if ctx.Err() != nil {
			return policy.AnswerDeny, context.Cause(ctx)
		}
		return policy.AnswerDeny, fmt.Errorf("%w: %v", errPermission, err)
	}
	sel := resp.Outcome.Selected
	if sel == nil {
		if ctx.Err() != nil {
			return policy.AnswerDeny, context.Cause(ctx)
		}
		return policy.AnswerDeny, nil // cancelled by the client: not allowed
	}
	switch string(sel.OptionId) {
	case optAllowOnce:
		return policy.AnswerOnce, nil
	case optAllowAlways:
		if q.Hook {
			return policy.AnswerDeny, nil // not offered
		}
		a.mu.Lock()
		a.trusted |= need
		a.mu.Unlock()
		return policy.AnswerTrustClass, nil
	}
	return policy.AnswerDeny, nil
}

// request is the permission request for q, on the call the loop is
// gating (its id rides on ctx's liveness span).
func (a *asker) request(ctx context.Context, q policy.Question) sdk.RequestPermissionRequest {
	id := ""
	if s := liveness.SpanFrom(ctx); s != nil {
		id = s.Activity().CallID
	}
	cv := viewCall(a.cwd, q.Tool, string(q.Args))
	title := cv.title
	if q.What != "" {
		title = untrusted.OneLine(q.What, titleRunes)
	}
	status := sdk.ToolCallStatusPending
	tc := sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(id), Title: &title, Kind: &cv.kind, Status: &status,
		Locations: cv.locations, RawInput: cv.raw,
		Content: textContent(fmt.Sprintf("risk: %s — %s", q.Class, untrusted.OneLine(q.Reason, 240))),
		Meta: map[string]any{"odek": map[string]any{
			"tool": q.Tool, "risk_class": q.Class.String(), "classes": policy.ClassNames(q.Classes), "reason": q.Reason, "hook": q.Hook,
		}},
	}
	opts := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	if !q.Hook {
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowAlways, Name: fmt.Sprintf("Always allow %s in this session", q.Class), Kind: sdk.PermissionOptionKindAllowAlways})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	return sdk.RequestPermissionRequest{SessionId: a.sid(), ToolCall: tc, Options: opts}
}

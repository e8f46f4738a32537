package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// prompt runs one turn: the session's loop on the prompt, its updates sent
// as it goes, the response after the last of them. A second prompt while
// one runs is refused (ErrBusy); the first goes on.
func (a *agent) prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, err := promptText(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	tctx, cancel := context.WithCancelCause(ctx)
	if !s.begin(cancel) {
		cancel(nil)
		return sdk.PromptResponse{}, fmt.Errorf("%w %q", ErrBusy, string(p.SessionId))
	}
	defer s.end()
	view := newTurnView(a.box, s)
	res, runErr := s.run.Turn(tctx, text, view)
	why := context.Cause(tctx)
	if res != nil && res.Answer != "" && !view.answerShown(res.Answer) {
		a.box.put(p.SessionId, sdk.UpdateAgentMessageText(res.Answer))
	}
	if res != nil {
		a.costUpdate(s, view, res)
	}
	// Every update of the turn goes before its response; a client that
	// left has them dropped.
	_ = a.box.flush(context.WithoutCancel(ctx))
	if why != nil { // session/cancel, $/cancel_request, or the client gone

		return withResult(sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, res), nil
	}
	if runErr != nil {
		return sdk.PromptResponse{}, runErr
	}
	return response(res)
}

// costUpdate adds the turn's cost to the session's and reports it with
// the context's use of the turn's last model call.
func (a *agent) costUpdate(s *session, v *turnView, res *TurnResult) {
	size := s.run.ContextWindow()
	s.mu.Lock()
	if res.Priced {
		s.cost += res.CostUSD
	}
	cost := s.cost
	s.mu.Unlock()
	used, ok := v.lastUsed()
	if !res.Priced || size <= 0 || !ok {
		return
	}
	a.box.put(sdk.SessionId(s.run.ID()), sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{
		Size: size, Used: used, Cost: &sdk.Cost{Amount: cost, Currency: "USD"}}})
}

// promptText is the user message of a prompt: its text, each resource
// link as a line naming it, each embedded text resource fenced under its
// URI. Images, audio and binary resources are refused (not advertised).
func promptText(blocks []sdk.ContentBlock) (string, error) {
	var b strings.Builder
	for _, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			fmt.Fprintf(&b, "\n[%s](%s)\n", c.ResourceLink.Name, c.ResourceLink.Uri)
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			fence := "```"
			for strings.Contains(r.Text, fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "\n%s:\n%s\n%s\n%s\n", r.Uri, fence, r.Text, fence)
		default:
			return "", fmt.Errorf("%w: odek takes text, resource links and embedded text resources", ErrUnsupportedContent)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", fmt.Errorf("%w: the prompt is empty", ErrUnsupportedContent)
	}
	return b.String(), nil
}

// stopReasons maps the report's termination_reason to ACP's stop reason.
// A budget stop on tokens is max_tokens, one on calls, time or money
// max_turn_requests (the turn's allowance ran out); the exact reason is in
// _meta.odek. A termination not listed here is a failure: an error.
var stopReasons = map[string]sdk.StopReason{
	"completed":                      sdk.StopReasonEndTurn,
	"max_tokens":                     sdk.StopReasonMaxTokens,
	"execution_budget:input_tokens":  sdk.StopReasonMaxTokens,
	"execution_budget:output_tokens": sdk.StopReasonMaxTokens,
	"max_iterations":                 sdk.StopReasonMaxTurnRequests,
	"execution_budget:tool_calls":    sdk.StopReasonMaxTurnRequests,
	"execution_budget:runtime":       sdk.StopReasonMaxTurnRequests,
	"execution_budget:cost_usd":      sdk.StopReasonMaxTurnRequests,
	"content_filter":                 sdk.StopReasonRefusal,
	"interrupted":                    sdk.StopReasonCancelled,
}

// response is the prompt's answer for a turn that ran: its stop reason,
// or an Internal error naming the failure (stalled, loop_detected,
// max_iterations_without_answer, empty_answer, output_schema_mismatch,
// error), with the termination and report in _meta or data.
func response(res *TurnResult) (sdk.PromptResponse, error) {
	if res == nil {
		return sdk.PromptResponse{}, errors.New("the turn ended without a result")
	}
	if stop, ok := stopReasons[res.Termination]; ok {
		return withResult(sdk.PromptResponse{StopReason: stop}, res), nil
	}
	msg := res.Error
	if msg == "" {
		msg = "the turn failed: " + res.Termination
	}
	return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{
		"error": msg, "termination_reason": res.Termination, "error_class": res.ErrorClass, "report": res.Report,
	})
}

// withResult adds what the turn spent and odek's own account of it.
func withResult(r sdk.PromptResponse, res *TurnResult) sdk.PromptResponse {
	if res == nil {
		return r
	}
	u := res.Usage
	in := int(u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens)
	cr, cw := int(u.CacheReadTokens), int(u.CacheCreationTokens)
	r.Usage = &sdk.Usage{InputTokens: in, OutputTokens: int(u.OutputTokens), TotalTokens: in + int(u.OutputTokens),
		CachedReadTokens: &cr, CachedWriteTokens: &cw}
	meta := map[string]any{"termination_reason": res.Termination}
	if res.Report != nil {
		meta["report"] = res.Report
	}
	if res.ErrorClass != "" {
		meta["error_class"] = res.ErrorClass
	}
	r.Meta = map[string]any{"odek": meta}
	return r
}

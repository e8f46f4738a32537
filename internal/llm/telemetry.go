package llm

import (
	"context"
	"encoding/json"

	"github.com/odek-run/odek/internal/telemetry"
)

// tracedAttempt is one attempt in its own chat span (docs/TELEMETRY.md):
// a retried request shows as one span per attempt. Without a tracer it is
// attempt itself.
func (c *Client) tracedAttempt(ctx context.Context, p prepared, req Request, n int) (*Response, error) {
	if c.tel == nil {
		return c.attempt(ctx, p, req)
	}
	ctx, span := c.tel.StartChat(ctx, telemetry.ChatInfo{
		Model: req.Model, Endpoint: c.endpoint, MaxTokens: req.MaxTokens, Attempt: n,
		Input: func() []telemetry.Message { return traceMessages(req.Messages) },
	})
	resp, err := c.attempt(ctx, p, req)
	var r telemetry.ChatResult
	if resp != nil {
		u := resp.Usage
		r = telemetry.ChatResult{ResponseModel: resp.ServedModel, FinishReason: resp.FinishReason, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheReadTokens: u.CacheReadTokens, CacheMade: u.CacheCreationTokens, UsagePresent: u.Present,
			Output: func() telemetry.Message {
				m := traceMessages([]Message{resp.Message})[0]
				m.FinishReason = resp.FinishReason
				return m
			}}
	}
	span.EndChat(r, err)
	return resp, err
}

// traceMessages are messages in the conventions' shape, for content
// capture (the tracer redacts them).
func traceMessages(msgs []Message) []telemetry.Message {
	out := make([]telemetry.Message, 0, len(msgs))
	for _, m := range msgs {
		tm := telemetry.Message{Role: m.Role}
		switch {
		case m.Role == RoleTool:
			tm.Parts = append(tm.Parts, telemetry.Part{Type: "tool_call_response", ID: m.ToolCallID, Response: m.Content})
		case m.Content != "":
			tm.Parts = append(tm.Parts, telemetry.Part{Type: "text", Content: m.Content})
		}
		for _, tc := range m.ToolCalls {
			tm.Parts = append(tm.Parts, telemetry.Part{Type: "tool_call", ID: tc.ID, Name: tc.Function.Name,
				Arguments: json.RawMessage(tc.Function.Arguments)})
		}
		if tm.Parts == nil {
			tm.Parts = []telemetry.Part{}
		}
		out = append(out, tm)
	}
	return out
}

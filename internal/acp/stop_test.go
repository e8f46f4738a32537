package acp

import (
	"context"
	"errors"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// Each termination maps to the stop reason that says it, and a failure is
// an error carrying the termination and the report.
func TestStopReasons(t *testing.T) {
	t.Parallel()
	for term, want := range map[string]sdk.StopReason{
		"completed":                      sdk.StopReasonEndTurn,
		"max_tokens":                     sdk.StopReasonMaxTokens,
		"execution_budget:output_tokens": sdk.StopReasonMaxTokens,
		"execution_budget:input_tokens":  sdk.StopReasonMaxTokens,
		"max_iterations":                 sdk.StopReasonMaxTurnRequests,
		"execution_budget:tool_calls":    sdk.StopReasonMaxTurnRequests,
		"execution_budget:runtime":       sdk.StopReasonMaxTurnRequests,
		"execution_budget:cost_usd":      sdk.StopReasonMaxTurnRequests,
		"content_filter":                 sdk.StopReasonRefusal,
		"interrupted":                    sdk.StopReasonCancelled,
	} {
		resp, err := response(&TurnResult{Termination: term, Report: map[string]any{"status": "x"}})
		if err != nil || resp.StopReason != want {
			t.Errorf("%s: %q, %v; want %q", term, resp.StopReason, err, want)
			continue
		}
		if m := resp.Meta["odek"].(map[string]any); m["termination_reason"] != term || m["report"] == nil {
			t.Errorf("%s: _meta %v", term, resp.Meta)
		}
	}
	for _, term := range []string{"stalled", "loop_detected", "max_iterations_without_answer", "empty_answer", "output_schema_mismatch", "error", "setup_error"} {
		_, err := response(&TurnResult{Termination: term, ErrorClass: "x", Error: "it broke", Report: map[string]any{}})
		var re *sdk.RequestError
		if !errors.As(err, &re) || re.Code != -32603 {
			t.Errorf("%s: %v, want an Internal error", term, err)
			continue
		}
		if d := re.Data.(map[string]any); d["termination_reason"] != term || d["error"] != "it broke" || d["report"] == nil {
			t.Errorf("%s: data %v", term, re.Data)
		}
	}
}

// A budget that stops a turn ends its prompt with max_turn_requests and
// the budget's termination in _meta; the next prompt runs.
func TestBudgetStopsTurn(t *testing.T) {
	t.Parallel()
	n := 0
	r := &fakeRunner{turn: func(context.Context, *fakeSession, string, Observer) (*TurnResult, error) {
		n++
		if n == 1 {
			return &TurnResult{Termination: "execution_budget:tool_calls", ErrorClass: "execution_budget", Answer: "partial summary"}, nil
		}
		return &TurnResult{Termination: "completed"}, nil
	}}
	client := &testClient{}
	p := serve(t, r, client)
	sid := p.start(t, sdk.ClientCapabilities{})
	resp, err := prompt(t, p, sid, "do a lot")
	if err != nil || resp.StopReason != sdk.StopReasonMaxTurnRequests {
		t.Fatalf("prompt: %+v, %v; want max_turn_requests", resp, err)
	}
	if m := resp.Meta["odek"].(map[string]any); m["termination_reason"] != "execution_budget:tool_calls" {
		t.Errorf("_meta %v", resp.Meta)
	}
	ups := client.got()
	if len(ups) == 0 || ups[len(ups)-1].AgentMessageChunk == nil || ups[len(ups)-1].AgentMessageChunk.Content.Text.Text != "partial summary" {
		t.Errorf("updates %+v: want the summary no reply carried", ups)
	}
	if resp, err := prompt(t, p, sid, "go on"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("next prompt: %+v, %v", resp, err)
	}
}

func TestPromptText(t *testing.T) {
	t.Parallel()
	text, err := promptText([]sdk.ContentBlock{
		sdk.TextBlock("look at this"),
		sdk.ResourceLinkBlock("main.go", "file:///w/main.go"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.md", Text: "has ``` inside"}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "look at this\n[main.go](file:///w/main.go)\n\nfile:///w/a.md:\n````\nhas ``` inside\n````\n"
	if text != want {
		t.Errorf("promptText = %q, want %q", text, want)
	}
	if _, err := promptText([]sdk.ContentBlock{sdk.TextBlock("  ")}); !errors.Is(err, ErrUnsupportedContent) {
		t.Errorf("empty prompt: %v", err)
	}
}

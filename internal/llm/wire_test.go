package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

func modes() map[string]bool { return map[string]bool{"stream": true, "json": false} }

// Reasoning arrives as reasoning_content (DeepSeek, go-openai) or reasoning
// (Ollama, OpenRouter); both read the same, streaming or not.
func TestReasoningUnderBothNames(t *testing.T) {
	for mode, stream := range modes() {
		for _, turn := range []fakellm.Turn{
			{ReasoningContent: "first I think", Content: "42"},
			{Reasoning: "first I think", Content: "42"},
		} {
			name := mode + "/reasoning_content"
			if turn.Reasoning != "" {
				name = mode + "/reasoning"
			}
			t.Run(name, func(t *testing.T) {
				srv := startFake(t, turn)
				resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
				if err != nil {
					t.Fatal(err)
				}
				if resp.Message.ReasoningContent != "first I think" || resp.Message.Content != "42" {
					t.Errorf("reasoning %q content %q", resp.Message.ReasoningContent, resp.Message.Content)
				}
			})
		}
	}
}

// A request without tools has no "tools" field at all: models without tool
// support (Ollama: "does not support tools") reject even an empty list.
func TestNoToolsNoToolsField(t *testing.T) {
	for mode, stream := range modes() {
		t.Run(mode, func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Content: "a"}, fakellm.Turn{Content: "b"})
			c := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream })
			req := simpleRequest()
			req.Tools = []llm.ToolSpec{}
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			req.Tools = []llm.ToolSpec{{Name: "f"}}
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if reqs[0].ToolsField || strings.Contains(string(reqs[0].Body), `"tools"`) {
				t.Errorf("tools sent without tools: %s", reqs[0].Body)
			}
			if !reqs[1].ToolsField || len(reqs[1].Tools) != 1 {
				t.Errorf("tools missing: %s", reqs[1].Body)
			}
		})
	}
}

// The reasoning rule: back to the provider only on an assistant message with
// tool calls, as reasoning_content; never with a final answer.
func TestReasoningSentBackOnlyWithToolCalls(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "ok"})
	req := llm.Request{Model: "m", Messages: []llm.Message{
		{Role: "user", Content: "q1"},
		{Role: "assistant", Content: "a1", ReasoningContent: "final answer's thoughts"},
		{Role: "user", Content: "q2"},
		{Role: "assistant", ReasoningContent: "why I call f", ToolCalls: []llm.ToolCall{{ID: "c1", Function: llm.FunctionCall{Name: "f", Arguments: "{}"}}}},
		{Role: "tool", ToolCallID: "c1", Content: "r"},
	}}
	if _, err := newClient(srv, &recorder{}).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0].Messages
	if got[1].ReasoningContent != "" || got[1].Reasoning != "" {
		t.Errorf("final answer's reasoning sent back: %+v", got[1])
	}
	if got[3].ReasoningContent != "why I call f" || got[3].Reasoning != "" {
		t.Errorf("tool-call reasoning: %+v", got[3])
	}
}

func TestReasoningEffortSent(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "a"}, fakellm.Turn{Content: "b"})
	c := newClient(srv, &recorder{})
	req := simpleRequest()
	req.ReasoningEffort = "high"
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), simpleRequest()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[0].ReasoningEffort != "high" || strings.Contains(string(reqs[1].Body), "reasoning_effort") {
		t.Errorf("bodies: %s / %s", reqs[0].Body, reqs[1].Body)
	}
}

// Ollama's stream: each tool call whole in one chunk, no ids from some
// servers, reasoning as "reasoning", then a usage chunk with "choices": [].
func TestOllamaStream(t *testing.T) {
	srv := startFake(t, fakellm.Turn{
		Reasoning: "two calls", WholeCalls: true, NoIDs: true,
		ToolCalls: []fakellm.ScriptCall{
			{Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
			{Name: "read", Arguments: json.RawMessage(`{"path":"b.go"}`)},
		},
		Usage: &fakellm.ScriptUsage{PromptTokens: 300, CompletionTokens: 40},
	})
	resp, err := newClient(srv, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message
	if len(m.ToolCalls) != 2 || m.ToolCalls[0].ID != "" || m.ToolCalls[1].Function.Arguments != `{"path":"b.go"}` || m.ReasoningContent != "two calls" {
		t.Fatalf("message = %+v", m)
	}
	if resp.Usage != (llm.Usage{InputTokens: 300, OutputTokens: 40, Present: true}) || resp.FinishReason != "tool_calls" {
		t.Errorf("usage %+v finish %q", resp.Usage, resp.FinishReason)
	}
	// The reasoning chunk and the two calls: three token chunks.
	if resp.Timing.TokenChunks != 3 {
		t.Errorf("token chunks = %d", resp.Timing.TokenChunks)
	}
}

// Each failure the provider can cause carries its error_class.
func TestErrorClasses(t *testing.T) {
	cases := []struct {
		name  string
		turns []fakellm.Turn
		class string
	}{
		{"401", []fakellm.Turn{{Fault: fakellm.FaultUnauthorized}}, "provider_auth"},
		{"403", []fakellm.Turn{{Fault: fakellm.FaultStatus, FaultArg: "403"}}, "provider_auth"},
		{"429 exhausted", []fakellm.Turn{{Fault: fakellm.FaultRateLimit}, {Fault: fakellm.FaultRateLimit}}, "rate_limited"},
		{"500 exhausted", []fakellm.Turn{{Fault: fakellm.FaultServerError}, {Fault: fakellm.FaultServerError}}, "provider_error"},
		{"404", []fakellm.Turn{{Fault: fakellm.FaultStatus, FaultArg: "404"}}, "provider_error"},
		{"context length", []fakellm.Turn{{Fault: fakellm.FaultContextLength}}, "provider_error"},
		{"malformed exhausted", []fakellm.Turn{{Fault: fakellm.FaultMalformedSSE}, {Fault: fakellm.FaultMalformedSSE}}, "provider_error"},
		{"dropped exhausted", []fakellm.Turn{{Fault: fakellm.FaultDropMidStream, Content: "cut short here"}, {Fault: fakellm.FaultDropMidStream, Content: "cut short here"}}, "provider_error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startFake(t, tc.turns...)
			_, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.MaxAttempts = 2 }).Complete(context.Background(), simpleRequest())
			if got := events.ErrorClass(err); got != tc.class {
				t.Errorf("error_class = %q, want %q (err %v)", got, tc.class, err)
			}
		})
	}
	if got := events.ErrorClass(&llm.RequestError{}); got != "error" {
		t.Errorf("request error class = %q", got)
	}
	if got := events.ErrorClass(&llm.TimeoutError{Phase: llm.PhaseIdle}); got != "provider_error" {
		t.Errorf("timeout class = %q", got)
	}
}

func TestResponseFormatSent(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: `{"v":1}`}, fakellm.Turn{Content: "b"})
	c := newClient(srv, &recorder{})
	req := simpleRequest()
	req.ResponseFormat = &llm.ResponseFormat{Name: "verdict", Schema: json.RawMessage(`{"type": "object", "title": "v"}`), Strict: true}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), simpleRequest()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	want := `"response_format":{"type":"json_schema","json_schema":{"name":"verdict","schema":{"type":"object","title":"v"},"strict":true}}`
	if !strings.Contains(string(reqs[0].Body), want) {
		t.Errorf("body lacks %s:\n%s", want, reqs[0].Body)
	}
	if strings.Contains(string(reqs[1].Body), "response_format") {
		t.Errorf("response_format sent without one asked: %s", reqs[1].Body)
	}
}

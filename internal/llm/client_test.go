package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

func TestStreamTextAndWhatWasSent(t *testing.T) {
	srv := startFake(t, fakellm.Turn{
		Content:   "Hello there, this answer arrives in many small chunks.",
		ChunkSize: 3,
		Usage:     &fakellm.ScriptUsage{PromptTokens: 11, CompletionTokens: 7},
	})
	rec := &recorder{}
	c := newClient(srv, rec)
	req := simpleRequest()
	req.MaxTokens = 321
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Message.Content, "Hello there, this answer arrives in many small chunks."; got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.FinishReason != "stop" || resp.Attempts != 1 {
		t.Errorf("role %q finish %q attempts %d", resp.Message.Role, resp.FinishReason, resp.Attempts)
	}
	if resp.ServedModel != req.Model {
		t.Errorf("served model %q, want the one the chunks name, %q", resp.ServedModel, req.Model)
	}
	want := llm.Usage{InputTokens: 11, OutputTokens: 7, Present: true}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.Timing.Total <= 0 || resp.Timing.TimeToFirstToken <= 0 || resp.Timing.TimeToFirstToken > resp.Timing.Total {
		t.Errorf("timing = %+v", resp.Timing)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
		t.Errorf("sent %s %s", r.Method, r.Path)
	}
	if !r.Stream || !r.IncludeUsage {
		t.Errorf("stream=%t include_usage=%t, want both", r.Stream, r.IncludeUsage)
	}
	if r.MaxTokens != 321 || r.MaxCompletionTokens != 0 {
		t.Errorf("max_tokens=%d max_completion_tokens=%d", r.MaxTokens, r.MaxCompletionTokens)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if r.Model != "test-model" || len(r.Messages) != 1 || r.Messages[0].Content != "hello" {
		t.Errorf("model %q messages %+v", r.Model, r.Messages)
	}
	if len(r.Tools) != 0 || strings.Contains(string(r.Body), `"tools"`) {
		t.Errorf("tools sent without any: %s", r.Body)
	}
}

func TestMaxTokensOmittedWhenZero(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "ok"}, fakellm.Turn{Content: "ok"})
	c := newClient(srv, &recorder{})
	if _, err := c.Complete(context.Background(), simpleRequest()); err != nil {
		t.Fatal(err)
	}
	req := simpleRequest()
	req.Model, req.MaxTokens = "gpt-5-mini", 50 // reasoning family: max_completion_tokens
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if strings.Contains(string(reqs[0].Body), "max_tokens") {
		t.Errorf("max_tokens sent for 0: %s", reqs[0].Body)
	}
	if reqs[1].MaxTokens != 0 || reqs[1].MaxCompletionTokens != 50 {
		t.Errorf("gpt-5: max_tokens=%d max_completion_tokens=%d", reqs[1].MaxTokens, reqs[1].MaxCompletionTokens)
	}
}

// TestEmptyContent: go-openai cannot send "content": "" (omitempty), so an
// empty message goes out as the API allows it: an assistant message with
// tool calls without content, an empty system message or an empty assistant
// message without tool calls not at all, and an empty tool result or user
// message with the placeholder (a message without content is refused there).
func TestEmptyContent(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "done"})
	c := newClient(srv, &recorder{})
	req := llm.Request{Model: "m", Messages: []llm.Message{
		{Role: llm.RoleSystem},
		{Role: llm.RoleUser, Content: "go"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Function: llm.FunctionCall{Name: "noop", Arguments: "{}"}}}},
		{Role: llm.RoleTool, ToolCallID: "c1"},
		{Role: llm.RoleAssistant},
		{Role: llm.RoleUser},
	}}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0].Messages
	if len(got) != 4 {
		t.Fatalf("%d messages sent, want 4 (no empty system, no empty assistant without calls): %+v", len(got), got)
	}
	if got[0].Role != "user" || got[0].Content != "go" {
		t.Errorf("first: %+v", got[0])
	}
	if got[1].Role != "assistant" || got[1].ContentPresent || len(got[1].ToolCalls) != 1 {
		t.Errorf("assistant with tool calls must go without content: %+v", got[1])
	}
	for _, m := range got[2:] {
		if !m.ContentPresent || m.Content != llm.EmptyContentPlaceholder {
			t.Errorf("%s message must carry content: %+v", m.Role, m)
		}
	}
}

func TestRequestMapping(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "done"})
	c := newClient(srv, &recorder{})
	schema := `{"type":"object","properties":{"text":{"type":"string","description":"what to count"}},"required":["text"],"additionalProperties":false}`
	req := llm.Request{
		Model: "test-model",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "be brief"},
			{Role: llm.RoleUser, Content: "count"},
			{Role: llm.RoleAssistant, ReasoningContent: "thinking...", ToolCalls: []llm.ToolCall{
				{ID: "call_a", Type: "function", Function: llm.FunctionCall{Name: "demo__word_count", Arguments: `{"text":"a b"}`}},
				{ID: "call_b", Function: llm.FunctionCall{Name: "noop", Arguments: `{}`}},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_a", Content: "2"},
			{Role: llm.RoleTool, ToolCallID: "call_b", Content: ""},
		},
		Tools: []llm.ToolSpec{
			{Name: "demo__word_count", Description: "Counts words", Parameters: json.RawMessage(schema)},
			{Name: "noop"},
		},
	}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if len(r.Messages) != 5 {
		t.Fatalf("messages: %+v", r.Messages)
	}
	a := r.Messages[2]
	if a.Role != "assistant" || a.ReasoningContent != "thinking..." || len(a.ToolCalls) != 2 {
		t.Fatalf("assistant message: %+v", a)
	}
	wantCalls := []fakellm.RecordedToolCall{
		{ID: "call_a", Type: "function", Name: "demo__word_count", Arguments: `{"text":"a b"}`},
		{ID: "call_b", Type: "function", Name: "noop", Arguments: `{}`},
	}
	if !reflect.DeepEqual(a.ToolCalls, wantCalls) {
		t.Errorf("tool calls = %+v", a.ToolCalls)
	}
	if m := r.Messages[3]; m.Role != "tool" || m.ToolCallID != "call_a" || m.Content != "2" {
		t.Errorf("tool message: %+v", m)
	}
	if m := r.Messages[4]; !m.ContentPresent || m.Content != llm.EmptyContentPlaceholder || m.ToolCallID != "call_b" {
		t.Errorf("empty tool message must carry a content field: %+v", m)
	}
	if len(r.Tools) != 2 {
		t.Fatalf("tools: %+v", r.Tools)
	}
	tool := r.Tools[0]
	if tool.Type != "function" || tool.Name != "demo__word_count" || tool.Description != "Counts words" {
		t.Errorf("tool: %+v", tool)
	}
	if !jsonEqual(t, tool.Parameters, []byte(schema)) {
		t.Errorf("parameters = %s, want the raw schema %s", tool.Parameters, schema)
	}
	if !jsonEqual(t, r.Tools[1].Parameters, []byte(`{"type":"object","properties":{}}`)) {
		t.Errorf("default parameters = %s", r.Tools[1].Parameters)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestInvalidToolSchemaIsNotSent(t *testing.T) {
	srv := startFake(t, fakellm.Turn{Content: "x"})
	c := newClient(srv, &recorder{})
	req := simpleRequest()
	req.Tools = []llm.ToolSpec{{Name: "bad", Parameters: json.RawMessage(`{"type":`)}}
	_, err := c.Complete(context.Background(), req)
	var re *llm.RequestError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), `tool "bad"`) {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestStreamToolCallSplitAcrossManyChunks(t *testing.T) {
	args := `{"text":"the quick brown fox jumps over the lazy dog — déjà vu","limit":3}`
	srv := startFake(t, fakellm.Turn{
		Content:   "Counting.",
		ToolCalls: []fakellm.ScriptCall{{ID: "call_xyz", Name: "demo__word_count", Arguments: json.RawMessage(args)}},
		ChunkSize: 1,
	})
	resp, err := newClient(srv, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "call_xyz", Type: "function", Function: llm.FunctionCall{Name: "demo__word_count", Arguments: args}}}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
		t.Errorf("tool calls = %+v\nwant %+v", resp.Message.ToolCalls, want)
	}
	if resp.Message.Content != "Counting." || resp.FinishReason != "tool_calls" {
		t.Errorf("content %q finish %q", resp.Message.Content, resp.FinishReason)
	}
}

func TestStreamParallelToolCallsInterleaved(t *testing.T) {
	calls := []fakellm.ScriptCall{
		{ID: "call_1", Name: "alpha", Arguments: json.RawMessage(`{"path":"a/very/long/path/to/somewhere.go"}`)},
		{ID: "call_2", Name: "beta", Arguments: json.RawMessage(`{"n":12345,"flags":["x","y","z"]}`)},
		{ID: "call_3", Name: "gamma", Arguments: json.RawMessage(`"not json at all"`)},
	}
	srv := startFake(t, fakellm.Turn{ToolCalls: calls, ChunkSize: 4, Interleave: true})
	resp, err := newClient(srv, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 3 {
		t.Fatalf("tool calls: %+v", resp.Message.ToolCalls)
	}
	for i, c := range calls {
		got := resp.Message.ToolCalls[i]
		if got.ID != c.ID || got.Function.Name != c.Name || got.Function.Arguments != c.ArgumentsText() || got.Type != "function" {
			t.Errorf("call %d = %+v, want %s %s %s", i, got, c.ID, c.Name, c.ArgumentsText())
		}
	}
	if resp.Message.Content != "" {
		t.Errorf("content = %q", resp.Message.Content)
	}
}

func TestNonStreaming(t *testing.T) {
	srv := startFake(t,
		fakellm.Turn{
			ReasoningContent: "hmm",
			ToolCalls:        []fakellm.ScriptCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}},
			Usage:            &fakellm.ScriptUsage{PromptTokens: 100, CompletionTokens: 20, CachedTokens: 64},
		},
		fakellm.Turn{Content: "plain", NoUsage: true},
	)
	c := newClient(srv, &recorder{}, nonStream)
	resp, err := c.Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Message{Role: "assistant", ReasoningContent: "hmm", ToolCalls: []llm.ToolCall{
		{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "f", Arguments: `{"a":1}`}},
	}}
	if !reflect.DeepEqual(resp.Message, want) {
		t.Errorf("message = %+v", resp.Message)
	}
	// prompt_tokens 100 holds the 64 cached ones: 36 were not cached.
	if u := (llm.Usage{InputTokens: 36, OutputTokens: 20, CacheReadTokens: 64, Present: true}); resp.Usage != u || u.Prompt() != 100 {
		t.Errorf("usage = %+v, want %+v", resp.Usage, u)
	}
	if resp.FinishReason != "tool_calls" || resp.Timing.TimeToFirstToken != 0 || resp.Timing.Total <= 0 {
		t.Errorf("finish %q timing %+v", resp.FinishReason, resp.Timing)
	}
	if resp.ServedModel == "" {
		t.Error("a plain answer's model was not kept")
	}

	resp, err = c.Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "plain" || resp.Usage.Present {
		t.Errorf("second: %q usage %+v", resp.Message.Content, resp.Usage)
	}
	for _, r := range srv.Requests() {
		if r.Stream || r.IncludeUsage || strings.Contains(string(r.Body), "stream_options") {
			t.Errorf("non-streaming request asked for a stream: %s", r.Body)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, stream := range []bool{true, false} {
		name := map[bool]string{true: "stream", false: "json"}[stream]
		t.Run(name+"/absent", func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Content: "x", NoUsage: true})
			resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage != (llm.Usage{}) {
				t.Errorf("usage = %+v, want absent", resp.Usage)
			}
		})
		t.Run(name+"/cached", func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Content: "x", Usage: &fakellm.ScriptUsage{PromptTokens: 50, CompletionTokens: 5, CachedTokens: 40}})
			resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			// The 40 cached tokens are part of prompt_tokens' 50, not beside it.
			if want := (llm.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 40, Present: true}); resp.Usage != want || resp.Usage.Prompt() != 50 {
				t.Errorf("usage = %+v, want %+v", resp.Usage, want)
			}
		})
		t.Run(name+"/cost", func(t *testing.T) {
			// OpenRouter reports the call's price as usage.cost.
			cost := 0.00042
			srv := startFake(t, fakellm.Turn{Content: "x", Usage: &fakellm.ScriptUsage{PromptTokens: 50, CompletionTokens: 5, Cost: &cost}})
			resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if want := (llm.Usage{InputTokens: 50, OutputTokens: 5, CostUSD: cost, CostReported: true, Present: true}); resp.Usage != want {
				t.Errorf("usage = %+v, want %+v", resp.Usage, want)
			}
		})
		t.Run(name+"/negative cost", func(t *testing.T) {
			cost := -1.0
			srv := startFake(t, fakellm.Turn{Content: "x", Usage: &fakellm.ScriptUsage{PromptTokens: 50, CompletionTokens: 5, Cost: &cost}})
			resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage.CostReported {
				t.Errorf("a negative cost was taken: %+v", resp.Usage)
			}
		})
		t.Run(name+"/generated", func(t *testing.T) {
			srv := startFake(t, fakellm.Turn{Content: strings.Repeat("word ", 40)})
			resp, err := newClient(srv, &recorder{}, func(o *llm.Options) { o.Stream = stream }).Complete(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if !resp.Usage.Present || resp.Usage.InputTokens < 1 || resp.Usage.OutputTokens != 50 {
				t.Errorf("usage = %+v", resp.Usage)
			}
		})
	}
}

func TestSlowFirstTokenIsTTFT(t *testing.T) {
	const delay = 150 * time.Millisecond
	srv := startFake(t, fakellm.Turn{Fault: fakellm.FaultSlowFirstToken, DelayMs: int(delay / time.Millisecond), Content: "late but fine", ChunkSize: 4, ChunkDelayMs: 5})
	resp, err := newClient(srv, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	tm := resp.Timing
	if tm.TimeToFirstToken < delay {
		t.Errorf("TTFT = %v, want >= %v", tm.TimeToFirstToken, delay)
	}
	if tm.Generation <= 0 || tm.Total < tm.TimeToFirstToken+tm.Generation-time.Millisecond {
		t.Errorf("timing = %+v", tm)
	}
	if resp.Message.Content != "late but fine" {
		t.Errorf("content %q", resp.Message.Content)
	}
}

package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

func responsesWire(o *llm.Options) { o.WireAPI = llm.WireResponses }

// Both ways of answering, on the Responses wire: text, reasoning, calls,
// usage with cached tokens, finish reasons.
func TestResponsesWireAnswers(t *testing.T) {
	t.Parallel()
	call := fakellm.ScriptCall{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}
	cases := []struct {
		name   string
		turn   fakellm.Turn
		want   llm.Message
		finish string
	}{
		{"text", fakellm.Turn{Content: "Hello there, this is a longer answer.", Usage: &fakellm.ScriptUsage{PromptTokens: 120, CompletionTokens: 9, CachedTokens: 100}},
			llm.Message{Role: "assistant", Content: "Hello there, this is a longer answer."}, "stop"},
		{"calls", fakellm.Turn{ToolCalls: []fakellm.ScriptCall{call, {ID: "c2", Name: "glob", Arguments: json.RawMessage(`{"pattern":"*.go","limit":100}`)}}},
			llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{
				{ID: "call_1_1", Type: "function", Function: llm.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}},
				{ID: "c2", Type: "function", Function: llm.FunctionCall{Name: "glob", Arguments: `{"pattern":"*.go","limit":100}`}}}}, "tool_calls"},
		{"whole calls", fakellm.Turn{WholeCalls: true, ToolCalls: []fakellm.ScriptCall{call}},
			llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "call_1_1", Type: "function", Function: llm.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}}}}, "tool_calls"},
		{"reasoning", fakellm.Turn{Reasoning: "think think", Content: "ok"},
			llm.Message{Role: "assistant", Content: "ok", ReasoningContent: "think think"}, "stop"},
		{"length", fakellm.Turn{Content: "cut", FinishReason: "length"}, llm.Message{Role: "assistant", Content: "cut"}, "length"},
		{"filtered", fakellm.Turn{Content: "", FinishReason: "content_filter"}, llm.Message{Role: "assistant"}, "content_filter"},
	}
	for _, tc := range cases {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%t", tc.name, stream), func(t *testing.T) {
				t.Parallel()
				srv := startFake(t, tc.turn)
				c := newClient(srv, &recorder{}, responsesWire, func(o *llm.Options) { o.Stream = stream })
				resp, err := c.Complete(context.Background(), simpleRequest())
				if err != nil {
					t.Fatal(err)
				}
				got := resp.Message
				got.ReasoningItems = nil
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("message\n got %+v\nwant %+v", got, tc.want)
				}
				if resp.FinishReason != tc.finish {
					t.Errorf("finish %q, want %q", resp.FinishReason, tc.finish)
				}
				if want := simpleRequest().Model; resp.ServedModel != want {
					t.Errorf("served model %q, want the one the answer names, %q", resp.ServedModel, want)
				}
				if u := tc.turn.Usage; u != nil {
					if resp.Usage.InputTokens != 20 || resp.Usage.CacheReadTokens != 100 || resp.Usage.OutputTokens != 9 {
						t.Errorf("usage %+v, want 20 uncached + 100 cached in, 9 out", resp.Usage)
					}
				}
				if reqs := srv.Requests(); len(reqs) != 1 || !strings.HasSuffix(reqs[0].Path, "/v1/responses") || reqs[0].Stream != stream {
					t.Errorf("requests %+v", reqs)
				}
			})
		}
	}
}

// What a Responses request carries: instructions, items, tools in the
// function-tool form, store false with the encrypted reasoning included,
// the cache key, effort, the output cap and the schema as text.format.
func TestResponsesRequestShape(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakellm.Turn{Content: "ok"})
	c := newClient(srv, &recorder{}, responsesWire, func(o *llm.Options) { o.PromptCacheKey = "run-1" })
	req := llm.Request{Model: "gpt-5", MaxTokens: 500, ReasoningEffort: "low",
		Messages:       []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi"}},
		Tools:          []llm.ToolSpec{{Name: "glob", Description: "Find files.", Parameters: json.RawMessage(`{"type":"object"}`)}},
		ResponseFormat: &llm.ResponseFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`), Strict: true}}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"model": `"gpt-5"`, "instructions": `"Be brief."`, "store": `false`, "stream": `true`,
		"include":           `["reasoning.encrypted_content"]`,
		"prompt_cache_key":  `"run-1"`,
		"reasoning":         `{"effort":"low"}`,
		"max_output_tokens": `500`,
		"input":             `[{"type":"message","role":"user","content":"hi"}]`,
		"tools":             `[{"description":"Find files.","name":"glob","parameters":{"type":"object"},"type":"function"}]`,
		"text":              `{"format":{"type":"json_schema","name":"answer","schema":{"type":"object"},"strict":true}}`,
	}
	for k, v := range want {
		if got := string(body[k]); got != v {
			t.Errorf("%s = %s, want %s", k, got, v)
		}
	}
	for k := range body {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected field %s = %s", k, body[k])
		}
	}
}

// A reasoning item goes back byte for byte, before the call it preceded,
// and a history message carries it through a JSON round trip (a session).
func TestResponsesReasoningRoundTrip(t *testing.T) {
	t.Parallel()
	enc := "gAAAAABo-opaque+/=="
	srv := startFake(t,
		fakellm.Turn{Reasoning: "I should list files.", EncryptedContent: enc, ToolCalls: []fakellm.ScriptCall{{ID: "c1", Name: "glob"}}},
		fakellm.Turn{Content: "done"})
	c := newClient(srv, &recorder{}, responsesWire)
	req := simpleRequest()
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ReasoningItems) != 1 {
		t.Fatalf("reasoning items %q", resp.Message.ReasoningItems)
	}
	sent := resp.Message.ReasoningItems[0]
	if !bytes.Contains(sent, []byte(`"encrypted_content":"`+enc+`"`)) || !bytes.Contains(sent, []byte(`"id":"rs_fake_1"`)) {
		t.Errorf("reasoning item %s", sent)
	}
	// through JSON, as a session stores it
	b, _ := json.Marshal(resp.Message)
	var stored llm.Message
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, stored, llm.Message{Role: "tool", ToolCallID: "c1", Name: "glob", Content: "a.go"})
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	in := srv.Requests()[1].Input
	if len(in) != 4 || !bytes.Equal(in[1], sent) {
		t.Fatalf("input %q\nwant item 1 = %s", in, sent)
	}
	if !strings.Contains(string(in[2]), `"type":"function_call"`) || !strings.Contains(string(in[3]), `"type":"function_call_output"`) {
		t.Errorf("items after the reasoning: %s %s", in[2], in[3])
	}
	if m := srv.Requests()[1].Messages[1]; len(m.ReasoningItems) != 1 || len(m.ToolCalls) != 1 {
		t.Errorf("server's view of the assistant turn: %+v", m)
	}
}

// An endpoint without /responses is a setup error naming the setting,
// after one attempt.
func TestResponsesWireMissingEndpoint(t *testing.T) {
	t.Parallel()
	srv, err := fakellm.Start(&fakellm.Script{ChatOnly: true, Turns: []fakellm.Turn{{Content: "x"}}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := &recorder{}
	_, err = newClient(srv, rec, responsesWire).Complete(context.Background(), simpleRequest())
	var we *llm.WireError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "llm.wire_api") || !strings.Contains(err.Error(), "--wire-api chat") {
		t.Fatalf("err = %v, want a WireError naming llm.wire_api", err)
	}
	if c, ok := err.(interface{ ErrorClass() string }); !ok || c.ErrorClass() != errclass.SetupError {
		t.Errorf("class of %v", err)
	}
	if n := len(srv.Requests()); n != 1 || len(rec.Retries()) != 0 {
		t.Errorf("%d requests, %d retries; want 1, 0", n, len(rec.Retries()))
	}
}

// A reasoning item the endpoint refuses is dropped with one warning and the
// request sent again at once; none goes back for the rest of the run.
func TestResponsesRefusedReasoningItem(t *testing.T) {
	t.Parallel()
	srv, err := fakellm.Start(&fakellm.Script{
		Refuse: []fakellm.Refusal{{Param: fakellm.ParamReasoningItems, Status: 400,
			Body:   `{"error":{"message":"The encrypted content for item rs_fake_1 could not be verified.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`,
			Source: "OpenAI's answer to a reasoning item encrypted for another organisation"}},
		Turns: []fakellm.Turn{{Content: "a"}, {Content: "b"}}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var falls []llm.Fallback
	c := newClient(srv, &recorder{}, responsesWire, func(o *llm.Options) { o.OnFallback = func(f llm.Fallback) { falls = append(falls, f) } })
	req := simpleRequest()
	req.Messages = append(req.Messages,
		llm.Message{Role: "assistant", Content: "earlier", ReasoningItems: []json.RawMessage{json.RawMessage(`{"id":"rs_fake_1","type":"reasoning","summary":[],"encrypted_content":"x"}`)}},
		llm.Message{Role: "user", Content: "again"})
	for i := range 2 {
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if resp.Attempts != 1 {
			t.Errorf("attempts %d", resp.Attempts)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || len(falls) != 1 || falls[0].Field != llm.FieldReasoningItems {
		t.Fatalf("%d requests, fallbacks %+v", len(reqs), falls)
	}
	if !strings.Contains(falls[0].Warning(), "no reasoning is sent back for the rest of the run") {
		t.Errorf("warning %q", falls[0].Warning())
	}
	for _, r := range reqs[1:] {
		if bytes.Contains(r.Body, []byte(`"reasoning"`)) || len(r.Include) != 0 {
			t.Errorf("reasoning sent again: %s", r.Body)
		}
	}
}

// Faults are met on this wire as on chat: retried, or the same typed error.
func TestResponsesWireFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fault  fakellm.Turn
		check  func(error) bool
		second bool // a second turn answers after a retry
	}{
		{fakellm.Turn{Fault: fakellm.FaultRateLimit, FaultArg: "1"}, nil, true},
		{fakellm.Turn{Fault: fakellm.FaultDropMidStream, Content: "a longer answer that is cut"}, nil, true},
		{fakellm.Turn{Fault: fakellm.FaultMalformedSSE}, nil, true},
		{fakellm.Turn{Fault: fakellm.FaultContextLength}, func(err error) bool { return errors.Is(err, llm.ErrContextLength) }, false},
		{fakellm.Turn{Fault: fakellm.FaultUnauthorized}, func(err error) bool { return errors.Is(err, llm.ErrAuth) }, false},
	}
	for _, tc := range cases {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%t", tc.fault.Fault, stream), func(t *testing.T) {
				t.Parallel()
				srv := startFake(t, tc.fault, fakellm.Turn{Content: "fine"})
				c := newClient(srv, &recorder{}, responsesWire, func(o *llm.Options) { o.Stream = stream })
				resp, err := c.Complete(context.Background(), simpleRequest())
				if tc.second {
					if err != nil || resp.Message.Content != "fine" || resp.Attempts != 2 {
						t.Fatalf("resp %+v, err %v; want the second turn after one retry", resp, err)
					}
					return
				}
				if !tc.check(err) {
					t.Fatalf("err = %v", err)
				}
			})
		}
	}
}

// Unknown stream events are skipped; a stream without response.completed
// is a dropped stream.
func TestResponsesStreamEvents(t *testing.T) {
	t.Parallel()
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	done := ev("response.completed", `{"type":"response.completed","response":{"status":"completed","output":[],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}}`)
	text := ev("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","output_index":0,"delta":"hi"}`)
	cases := []struct {
		name, body string
		text       string
		err        bool
	}{
		{"unknown events", ev("response.future_thing", `{"type":"response.future_thing","x":[1,{"y":2}]}`) + text + ": comment\n\n" + done, "hi", false},
		{"completed output only", ev("response.completed", `{"type":"response.completed","response":{"status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"whole"}]}]}}`), "whole", false},
		{"no completed", text, "", true},
		{"in-stream error", ev("error", `{"type":"error","code":"server_error","message":"boom"}`), "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			c := llm.New(llm.Options{BaseURL: "http://fake.invalid/v1", Stream: true, MaxAttempts: 1, WireAPI: llm.WireResponses,
				HTTPClient: &http.Client{Transport: &fixedTransport{status: 200, body: tc.body}}, Sleep: rec.sleep})
			resp, err := c.Complete(context.Background(), simpleRequest())
			if tc.err != (err != nil) {
				t.Fatalf("resp %+v, err %v", resp, err)
			}
			if err == nil && resp.Message.Content != tc.text {
				t.Errorf("text %q, want %q", resp.Message.Content, tc.text)
			}
		})
	}
}

// A message changed since the last request (a trimmed result) is encoded
// again, not sent as its old bytes; an assistant message with only
// reasoning is left out with its reasoning, never sent alone.
func TestResponsesItemsFollowTheHistory(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakellm.Turn{Content: "a"}, fakellm.Turn{Content: "b"})
	c := newClient(srv, &recorder{}, responsesWire)
	req := simpleRequest()
	req.Messages = append(req.Messages,
		llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "f", Arguments: "{}"}}}},
		llm.Message{Role: "tool", ToolCallID: "c1", Content: "a long result"},
		llm.Message{Role: "assistant", ReasoningItems: []json.RawMessage{json.RawMessage(`{"type":"reasoning","encrypted_content":"alone"}`)}},
		llm.Message{Role: "user", Content: "go on"})
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	req.Messages[2].Content = "[truncated]"
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if bytes.Contains(reqs[0].Body, []byte("alone")) {
		t.Errorf("a reasoning item went without the item after it: %s", reqs[0].Body)
	}
	if !bytes.Contains(reqs[1].Body, []byte(`"output":"[truncated]"`)) || bytes.Contains(reqs[1].Body, []byte("a long result")) {
		t.Errorf("the changed result was not sent as it is now: %s", reqs[1].Body)
	}
}

package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

var responsesSeeds = []string{
	"",
	"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n",
	"event: x\ndata: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"reasoning\",\"encrypted_content\":7}}\n\n",
	"data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"\",\"output_index\":-3,\"delta\":\"{\"}\n\n" +
		"data: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"content_filter\"}}}\n\n",
	"data: {\"type\":\"error\",\"code\":null,\"message\":\"\"}\n\n",
	"data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"x\"}}}\n\n",
	`{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]}],"usage":{"input_tokens":2,"input_tokens_details":{"cached_tokens":5}}}`,
	`{"status":"incomplete","output":[{"type":"function_call","call_id":"c","name":"f"}]}`,
	`{"error":{"message":"bad","code":"x"},"status":"failed"}`,
	`{"output":"not a list"}`,
}

// FuzzResponsesBody runs arbitrary bytes as a Responses reply, streamed or
// whole, through the client over an in-memory transport: one outcome, never a panic, and a reasoning item kept only
// as valid JSON.
func FuzzResponsesBody(f *testing.F) {
	for _, s := range responsesSeeds {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	for _, name := range []string{"openai_reasoning_call.json", "openai_stream_text.sse", "openai_stream_call.sse", "ollama_stream_thinking_call.sse"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "responses", name)); err == nil {
			f.Add(b, filepath.Ext(name) == ".sse")
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, stream bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ctype := "application/json"
		if stream {
			ctype = "text/event-stream"
		}
		c := llm.New(llm.Options{BaseURL: "http://fake.invalid/v1", Stream: stream, MaxAttempts: 2, WireAPI: llm.WireResponses,
			HTTPClient: &http.Client{Transport: &fixedTransport{status: 200, header: http.Header{"Content-Type": {ctype}}, body: string(body)}},
			Sleep:      func(context.Context, time.Duration) error { return nil }})
		resp, err := c.Complete(ctx, simpleRequest())
		checkOutcome(t, resp, err)
		if resp != nil {
			for _, it := range resp.Message.ReasoningItems {
				if !json.Valid(it) {
					t.Fatalf("reasoning item kept that is not JSON: %q", it)
				}
			}
		}
	})
}

// FuzzResponsesRefusal answers every Responses request with an arbitrary
// error: the client stops after a bounded number of requests, whatever the
// body says (each refusable field is dropped at most once).
func FuzzResponsesRefusal(f *testing.F) {
	f.Add(400, `{"error":{"message":"The encrypted content for item rs_1 could not be verified."}}`)
	f.Add(400, `{"error":{"message":"Unsupported parameter: 'prompt_cache_key' text.format reasoning.effort does not support tools"}}`)
	f.Add(404, `404 page not found`)
	f.Add(405, ``)
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 400 || status > 599 {
			return
		}
		ft := &countingTransport{fixedTransport: fixedTransport{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: body}}
		c := llm.New(llm.Options{BaseURL: "http://fake.invalid/v1", Stream: true, MaxAttempts: 2, WireAPI: llm.WireResponses, PromptCacheKey: "k",
			HTTPClient: &http.Client{Transport: ft}, Sleep: func(context.Context, time.Duration) error { return nil }})
		req := simpleRequest()
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: "x",
			ReasoningItems: []json.RawMessage{json.RawMessage(`{"type":"reasoning","encrypted_content":"e"}`)}}, llm.Message{Role: llm.RoleUser, Content: "y"})
		req.Tools = []llm.ToolSpec{{Name: "shell"}}
		req.ReasoningEffort = "low"
		req.ResponseFormat = &llm.ResponseFormat{Name: "v", Schema: []byte(`{}`)}
		resp, err := c.Complete(context.Background(), req)
		if resp != nil || err == nil {
			t.Fatalf("an error status gave a response: %v", resp)
		}
		if n := ft.n.Load(); n > 5+2 {
			t.Fatalf("%d requests for one call", n)
		}
	})
}

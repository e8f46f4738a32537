package llm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// benchStream is a realistic streamed answer: some text, then one tool call
// whose arguments arrive in 8-byte pieces, then usage.
var benchStream = func() string {
	var b strings.Builder
	chunk := func(delta string, finish string) {
		fr := "null"
		if finish != "" {
			fr = `"` + finish + `"`
		}
		b.WriteString(`data: {"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fr + "}]}\n\n")
	}
	chunk(`{"role":"assistant","content":""}`, "")
	for _, w := range strings.Fields("Let me count the words in that text for you before answering.") {
		chunk(`{"content":"`+w+` "}`, "")
	}
	chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"demo__word_count","arguments":""}}]}`, "")
	args := `{\"text\":\"the quick brown fox jumps over the lazy dog and keeps running far away\"}`
	for i := 0; i < len(args); i += 8 {
		end := min(i+8, len(args))
		for end < len(args) && args[end-1] == '\\' { // keep escapes whole
			end++
		}
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"`+args[i:end]+`"}}]}`, "")
		i = end - 8
	}
	chunk(`{}`, "tool_calls")
	b.WriteString(`data: {"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}()

// BenchmarkStreamToolCall measures one streamed completion with a tool call
// against an in-process HTTP server.
func BenchmarkStreamToolCall(b *testing.B) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, benchStream)
	}))
	defer ts.Close()
	c := llm.New(llm.Options{BaseURL: ts.URL + "/v1", APIKey: "k", Stream: true, HTTPClient: ts.Client()})
	req := simpleRequest()
	ctx := context.Background()
	resp, err := c.Complete(ctx, req)
	if err != nil || len(resp.Message.ToolCalls) != 1 || !json.Valid([]byte(resp.Message.ToolCalls[0].Function.Arguments)) || !strings.Contains(resp.Message.ToolCalls[0].Function.Arguments, "far away") {
		b.Fatalf("resp %+v err %v", resp, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Complete(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

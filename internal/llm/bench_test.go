package llm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// historyRequest is a request with n history messages shaped like a loop's:
// a system prompt and a task, then assistant tool calls, each followed by a
// 2 KB tool result, and a final short user message.
func historyRequest(n int) llm.Request {
	result := strings.Repeat("line of tool output with <angle> & \"quotes\"\n", 48) // ~2 KB
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "You are odek, a careful agent."},
		{Role: llm.RoleUser, Content: "Count the words in every file of the repository."},
	}
	for i := 0; len(msgs) < n-1; i++ {
		id := "call_" + strconv.Itoa(i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Type: "function",
				Function: llm.FunctionCall{Name: "demo__word_count", Arguments: `{"path":"file` + strconv.Itoa(i) + `.go"}`}}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "demo__word_count", Content: result},
		)
	}
	msgs = append(msgs[:n-1], llm.Message{Role: llm.RoleUser, Content: "Go on."})
	return llm.Request{
		Model: "m", Messages: msgs,
		Tools: []llm.ToolSpec{{Name: "demo__word_count", Description: "Counts words", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
	}
}

// BenchmarkRequestHistory measures one streamed call whose request carries a
// history of 10, 100 and 1,000 messages, against an in-process server that
// reads the body and answers a short stream: the cost of building and
// sending the request grows with the history.
func BenchmarkRequestHistory(b *testing.B) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer ts.Close()
	for _, n := range []int{10, 100, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			c := llm.New(llm.Options{BaseURL: ts.URL + "/v1", APIKey: "k", Stream: true, HTTPClient: ts.Client()})
			req := historyRequest(n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Complete(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

var streamSeeds = []string{
	"",
	"data: [DONE]\n\n",
	`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1}}}` + "\n\n" +
		"data: [DONE]\n\n",
	`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":""}}]}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"d","function":{"name":"g","arguments":"{\"a"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":-7,"function":{"arguments":"x"}},{"index":2147483647}]}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n",
	`data: {"choices":[{"index":0,"delta":{"content":"hel` + "\n\n",
	`data: {"error":{"message":"overloaded","code":529}}` + "\n\n",
	"event: ping\n: keep-alive\n\nretry: 10\n\ndata: {}\n\n",
	"data:{\"choices\":[{\"delta\":{\"content\":1}}]}\n",
	"<html>not sse</html>",
	`{"error":{"message":"bad"}}`,
	strings.Repeat("\n", 400) + "data: [DONE]\n\n",
}

var jsonSeeds = []string{
	"",
	"{}",
	"null",
	`{"choices":[]}`,
	`{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
	`{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
	`{"choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"text","text":"parts"}]}}]}`,
	`{"error":{"message":"maximum context length exceeded"}}`,
	`{"choices":[{"index":0,"message":{"content":"hel`,
	`{"usage":{"prompt_tokens":"many"}}`,
	`[1,2,3]`,
}

func fuzzClient(body string, stream bool) *llm.Client {
	c := bodyClient(body, stream, &recorder{})
	return c
}

func checkOutcome(t *testing.T, resp *llm.Response, err error) {
	t.Helper()
	if (resp == nil) == (err == nil) {
		t.Fatalf("want exactly one of response and error: resp=%v err=%v", resp, err)
	}
	if resp != nil {
		if resp.Message.Role != llm.RoleAssistant || resp.Attempts < 1 {
			t.Fatalf("bad response %+v", resp)
		}
		for _, tc := range resp.Message.ToolCalls {
			if tc.Type != "function" {
				t.Fatalf("tool call without type: %+v", tc)
			}
		}
	}
	if err != nil && err.Error() == "" {
		t.Fatal("empty error text")
	}
}

// FuzzStreamBody runs arbitrary bytes as an SSE body through the streaming
// client, over an in-memory transport.
func FuzzStreamBody(f *testing.F) {
	for _, s := range streamSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fuzzClient(string(body), true).Complete(ctx, simpleRequest())
		checkOutcome(t, resp, err)
	})
}

// FuzzJSONBody runs arbitrary bytes as a non-streaming JSON body.
func FuzzJSONBody(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fuzzClient(string(body), false).Complete(ctx, simpleRequest())
		checkOutcome(t, resp, err)
	})
}

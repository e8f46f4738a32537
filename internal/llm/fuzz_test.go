package llm_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
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
	`data: {"choices":[{"index":0,"delta":{"reasoning":"hm","reasoning_content":"m"},"finish_reason":"stop"}]}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"cost":0.5,"cache_read_input_tokens":3,"prompt_tokens_details":{"cache_creation_tokens":4}}}` + "\n\n",
	`data: {"choices":[{"index":0,"delta":{"reasoning":7},"finish_reason":"stop"}],"usage":{"cost":"free"}}` + "\n\n",
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
	`{"choices":[{"index":0,"message":{"role":"assistant","content":"x","reasoning":"r"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"cost":1e308,"cache_creation_input_tokens":-2}}`,
	`{"choices":[{"index":0,"message":{"content":"x","reasoning":{}},"finish_reason":"stop"}],"usage":{"cost":-1}}`,
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

// FuzzRefusal answers every request with an arbitrary error status and body:
// whatever the body says, the client stops after a bounded number of
// requests (one per refusable field plus its retries) with one outcome.
func FuzzRefusal(f *testing.F) {
	f.Add(400, `{"error":{"message":"registry.ollama.ai/library/m does not support tools"}}`)
	f.Add(500, `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`)
	f.Add(400, `{"error":{"message":"think value \"low\" is not supported for this model"}}`)
	f.Add(400, `response_format reasoning_effort does not support tools`)
	f.Add(404, `{"error":{"message":"No endpoints found that support tool use.","code":404}}`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 400 || status > 599 {
			return
		}
		ft := &countingTransport{fixedTransport: fixedTransport{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: body}}
		c := llm.New(llm.Options{BaseURL: "http://fake.invalid/v1", Stream: true, MaxAttempts: 2,
			HTTPClient: &http.Client{Transport: ft}, Sleep: func(context.Context, time.Duration) error { return nil }})
		req := simpleRequest()
		req.Tools = []llm.ToolSpec{{Name: "shell"}}
		req.ReasoningEffort = "low"
		req.ResponseFormat = &llm.ResponseFormat{Name: "v", Schema: []byte(`{}`)}
		resp, err := c.Complete(context.Background(), req)
		if resp != nil || err == nil {
			t.Fatalf("an error status gave a response: %v", resp)
		}
		if n := ft.n.Load(); n > 3+2 {
			t.Fatalf("%d requests for one call", n)
		}
	})
}

// countingTransport is a fixedTransport that counts requests.
type countingTransport struct {
	fixedTransport
	n atomic.Int32
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.fixedTransport.RoundTrip(req)
}

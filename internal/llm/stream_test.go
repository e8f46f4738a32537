package llm_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

func TestTruncatedStreamWithoutFinishRetried(t *testing.T) {
	body := `data: {"choices":[{"index":0,"delta":{"content":"partial"},"finish_reason":null}]}` + "\n\n"
	_, err := bodyClient(body, true, &recorder{}).Complete(context.Background(), simpleRequest())
	var ne *llm.NetworkError
	if !errors.As(err, &ne) || !ne.MidStream || !strings.Contains(err.Error(), "retry exhausted (2 attempts) calling http://fake.invalid/v1/chat/completions: connection lost before the response was complete: stream ended before any finish_reason") {
		t.Fatalf("err = %v", err)
	}
	// With a finish_reason and no [DONE], the answer is accepted.
	body += `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	resp, err := bodyClient(body, true, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil || resp.Message.Content != "partial" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestNotAStream(t *testing.T) {
	_, err := bodyClient("<html><body>Welcome to nginx!</body></html>\n", true, &recorder{}).Complete(context.Background(), simpleRequest())
	var me *llm.MalformedResponseError
	if !errors.As(err, &me) || me.What != "SSE stream" || !strings.Contains(err.Error(), "no data events") {
		t.Fatalf("err = %v", err)
	}
}

func TestToolCallsWithoutIndexOrID(t *testing.T) {
	body := strings.Join([]string{
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"type":"function","function":{"name":"a","arguments":"{\"x\":"}}]}}]}`,
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}`,
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`data: [DONE]`, ``,
	}, "\n\n")
	resp, err := bodyClient(body, true, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	// No id: the loop names it; the client never invents one (it would repeat).
	want := []llm.ToolCall{{ID: "", Type: "function", Function: llm.FunctionCall{Name: "a", Arguments: `{"x":1}`}}}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
		t.Errorf("calls = %+v", resp.Message.ToolCalls)
	}
	if resp.Usage.Present {
		t.Errorf("usage present: %+v", resp.Usage)
	}
}

func TestJSONAnswerToAStreamRequest(t *testing.T) {
	c := llm.New(llm.Options{
		BaseURL: "http://fake.invalid/v1", Stream: true,
		HTTPClient: &http.Client{Transport: &fixedTransport{status: 200, header: http.Header{"Content-Type": {"application/json"}},
			body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`}},
	})
	_, err := c.Complete(context.Background(), simpleRequest())
	if err == nil || !strings.Contains(err.Error(), `Content-Type "application/json": if the server does not stream, set stream to false`) {
		t.Fatalf("err = %v", err)
	}
}

func TestKeepAliveCommentsDoNotBreakAStream(t *testing.T) {
	body := strings.Repeat(": keep-alive\n\n", 2000) +
		`data: {"choices":[{"index":0,"delta":{"content":"thought hard"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	resp, err := bodyClient(body, true, &recorder{}).Complete(context.Background(), simpleRequest())
	if err != nil || resp.Message.Content != "thought hard" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

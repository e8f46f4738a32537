package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

// captureTransport answers every request with one fixture and keeps the
// request bodies.
type captureTransport struct {
	fixed fixedTransport
	mu    sync.Mutex
	sent  [][]byte
}

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(req.Body)
	req.Body.Close()
	c.mu.Lock()
	c.sent = append(c.sent, b)
	c.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(nil))
	return c.fixed.RoundTrip(req)
}

// The recorded shapes of OpenAI's and Ollama's replies decode to the same
// message the loop gets on the chat wire, and their reasoning items go back
// in the next request byte for byte (compacted, as encoding/json sends them).
func TestResponsesFixtures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file      string
		text      string
		reasoning string
		calls     string
		usage     llm.Usage
		items     int
	}{
		{"openai_reasoning_call.json", "", "", `call_Q2w3E4r5T6y7U8i9 get_weather {"location":"Lyon, France"}`,
			llm.Usage{InputTokens: 252, CacheReadTokens: 1280, OutputTokens: 214, ReasoningTokens: 192, Present: true}, 1},
		{"openai_stream_text.sse", "Four files.", "", "",
			llm.Usage{InputTokens: 128, CacheReadTokens: 1920, OutputTokens: 70, ReasoningTokens: 64, Present: true}, 1},
		{"openai_stream_call.sse", "", "", `call_stream2 get_weather {"location":"Lyon"}`,
			llm.Usage{InputTokens: 80, OutputTokens: 18, Present: true}, 0},
		{"ollama_stream_thinking_call.sse", "", "The user wants the weather.", `call_k3j2h1 get_weather {"location":"Lyon"}`,
			llm.Usage{InputTokens: 311, OutputTokens: 42, Present: true}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(filepath.Join("testdata", "responses", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			stream := strings.HasSuffix(tc.file, ".sse")
			ctype := "application/json"
			if stream {
				ctype = "text/event-stream"
			}
			tr := &captureTransport{fixed: fixedTransport{status: 200, header: http.Header{"Content-Type": {ctype}}, body: string(body)}}
			c := llm.New(llm.Options{BaseURL: "http://fake.invalid/v1", Stream: stream, WireAPI: llm.WireResponses, MaxAttempts: 1,
				HTTPClient: &http.Client{Transport: tr}})
			req := simpleRequest()
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			m := resp.Message
			var calls []string
			for _, tc := range m.ToolCalls {
				calls = append(calls, tc.ID+" "+tc.Function.Name+" "+tc.Function.Arguments)
			}
			if m.Content != tc.text || m.ReasoningContent != tc.reasoning || strings.Join(calls, "; ") != tc.calls {
				t.Errorf("message %+v", m)
			}
			if resp.Usage != tc.usage {
				t.Errorf("usage %+v, want %+v", resp.Usage, tc.usage)
			}
			if len(m.ReasoningItems) != tc.items {
				t.Fatalf("%d reasoning items, want %d", len(m.ReasoningItems), tc.items)
			}
			// send it back, with a result per call
			req.Messages = append(req.Messages, m)
			for _, call := range m.ToolCalls {
				req.Messages = append(req.Messages, llm.Message{Role: "tool", ToolCallID: call.ID, Content: "sunny"})
			}
			if len(m.ToolCalls) == 0 {
				req.Messages = append(req.Messages, llm.Message{Role: "user", Content: "more"})
			}
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			var sent struct{ Input []json.RawMessage }
			if err := json.Unmarshal(tr.sent[1], &sent); err != nil {
				t.Fatal(err)
			}
			for _, item := range m.ReasoningItems {
				var want bytes.Buffer
				json.Compact(&want, item)
				if !bytes.Equal(sent.Input[1], want.Bytes()) {
					t.Errorf("reasoning item sent back as\n%s\nwant\n%s", sent.Input[1], want.Bytes())
				}
				if !bytes.Contains(body, []byte(`"encrypted_content"`)) || !bytes.Contains(sent.Input[1], []byte(`"encrypted_content"`)) {
					t.Errorf("encrypted content lost: %s", sent.Input[1])
				}
			}
		})
	}
}

// A long run's requests are append-only: every input item of request N is,
// byte for byte and in order, the start of request N+1's input, and the
// instructions and tools are the same bytes every time.
func TestResponsesAppendOnly(t *testing.T) {
	t.Parallel()
	const rounds = 40
	var turns []fakellm.Turn
	for i := range rounds {
		turns = append(turns, fakellm.Turn{Reasoning: "step " + strconv.Itoa(i), Content: "looking",
			ToolCalls: []fakellm.ScriptCall{{Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, i))}}})
	}
	srv := startFake(t, turns...)
	c := newClient(srv, &recorder{}, responsesWire, func(o *llm.Options) { o.PromptCacheKey = "sess-1" })
	tools := []llm.ToolSpec{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	req := llm.Request{Model: "m", Tools: tools, Messages: []llm.Message{{Role: "system", Content: "You are odek <careful> & \"exact\"."}, {Role: "user", Content: "Read them all."}}}
	for range rounds {
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		req.Messages = append(req.Messages, resp.Message)
		for _, call := range resp.Message.ToolCalls {
			req.Messages = append(req.Messages, llm.Message{Role: "tool", ToolCallID: call.ID, Content: strings.Repeat("package x <a> & b\n", 40)})
		}
	}
	type body struct{ Input, Instructions, Tools json.RawMessage }
	var prev body
	for i, r := range srv.Requests() {
		var b body
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if !bytes.Equal(b.Instructions, prev.Instructions) || !bytes.Equal(b.Tools, prev.Tools) {
				t.Fatalf("request %d: instructions or tools changed", i+1)
			}
			head := prev.Input[:len(prev.Input)-1] // without its closing bracket
			if !bytes.HasPrefix(b.Input, head) || len(b.Input) <= len(prev.Input) {
				t.Fatalf("request %d's input does not extend request %d's:\n%s\n%s", i+1, i, clipBytes(prev.Input), clipBytes(b.Input))
			}
		}
		prev = b
	}
	if got := len(srv.Requests()); got != rounds {
		t.Fatalf("%d requests", got)
	}
}

func clipBytes(b []byte) string {
	if len(b) > 300 {
		return string(b[:150]) + " … " + string(b[len(b)-150:])
	}
	return string(b)
}

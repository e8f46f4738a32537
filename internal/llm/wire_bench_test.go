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

// responsesBenchStream is benchStream's answer on the Responses wire, as
// OpenAI streams it: the same text in the same words, the same call with
// its arguments in the same 8-byte pieces, and usage.
var responsesBenchStream = func() string {
	var b strings.Builder
	seq := 0
	ev := func(typ, rest string) {
		b.WriteString("event: " + typ + "\ndata: {\"type\":\"" + typ + "\",\"sequence_number\":" + strconv.Itoa(seq) + "," + rest + "}\n\n")
		seq++
	}
	resp := `"response":{"id":"resp_b","object":"response","created_at":1,"status":"in_progress","model":"m","output":[],"usage":null}`
	ev("response.created", resp)
	ev("response.in_progress", resp)
	ev("response.output_item.added", `"output_index":0,"item":{"id":"msg_b","type":"message","status":"in_progress","role":"assistant","content":[]}`)
	ev("response.content_part.added", `"item_id":"msg_b","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`)
	text := ""
	for _, w := range strings.Fields("Let me count the words in that text for you before answering.") {
		ev("response.output_text.delta", `"item_id":"msg_b","output_index":0,"content_index":0,"delta":"`+w+` "`)
		text += w + " "
	}
	ev("response.output_text.done", `"item_id":"msg_b","output_index":0,"content_index":0,"text":"`+text+`"`)
	ev("response.content_part.done", `"item_id":"msg_b","output_index":0,"content_index":0,"part":{"type":"output_text","text":"`+text+`","annotations":[]}`)
	msg := `{"id":"msg_b","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"` + text + `","annotations":[]}]}`
	ev("response.output_item.done", `"output_index":0,"item":`+msg)
	ev("response.output_item.added", `"output_index":1,"item":{"id":"fc_b","type":"function_call","status":"in_progress","call_id":"call_1","name":"demo__word_count","arguments":""}`)
	args := `{\"text\":\"the quick brown fox jumps over the lazy dog and keeps running far away\"}`
	for i := 0; i < len(args); i += 8 {
		end := min(i+8, len(args))
		for end < len(args) && args[end-1] == '\\' {
			end++
		}
		ev("response.function_call_arguments.delta", `"item_id":"fc_b","output_index":1,"delta":"`+args[i:end]+`"`)
		i = end - 8
	}
	ev("response.function_call_arguments.done", `"item_id":"fc_b","output_index":1,"arguments":"`+args+`"`)
	call := `{"id":"fc_b","type":"function_call","status":"completed","call_id":"call_1","name":"demo__word_count","arguments":"` + args + `"}`
	ev("response.output_item.done", `"output_index":1,"item":`+call)
	ev("response.completed", `"response":{"id":"resp_b","object":"response","created_at":1,"status":"completed","model":"m","output":[`+msg+`,`+call+`],"usage":{"input_tokens":120,"input_tokens_details":{"cached_tokens":0},"output_tokens":40,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":160}}`)
	return b.String()
}()

// BenchmarkWireCall is one streamed call with a tool call on each wire, as
// the loop makes it: eleven tools, a history that grows by the reply and
// its result before each call (kept at about 40 messages), against an
// in-process server that reads the request and streams the same answer in
// the wire's format. allocs/op compares the wires' client-side
// allocations (issue 39: the Responses wire allocates no more per
// iteration than chat).
func BenchmarkWireCall(b *testing.B) {
	for _, wire := range []struct{ name, stream string }{{llm.WireChat, benchStream}, {llm.WireResponses, responsesBenchStream}} {
		b.Run(wire.name, func(b *testing.B) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, wire.stream)
			}))
			defer ts.Close()
			c := llm.New(llm.Options{BaseURL: ts.URL + "/v1", APIKey: "k", Stream: true, HTTPClient: ts.Client(), WireAPI: wire.name})
			req := historyRequest(40)
			req.Tools = nil
			for i := range 11 {
				req.Tools = append(req.Tools, llm.ToolSpec{Name: "tool_" + strconv.Itoa(i), Description: strings.Repeat("Does one careful thing. ", 12),
					Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"a path inside the workspace"}},"required":["path"]}`)})
			}
			base := len(req.Messages)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				resp, err := c.Complete(ctx, req)
				if err != nil || len(resp.Message.ToolCalls) != 1 {
					b.Fatalf("resp %+v err %v", resp, err)
				}
				if len(req.Messages) > base+20 { // a new run's history, as in a 20-iteration run
					req.Messages = req.Messages[:base]
				}
				req.Messages = append(req.Messages, resp.Message,
					llm.Message{Role: llm.RoleTool, ToolCallID: resp.Message.ToolCalls[0].ID, Content: "42 words " + strconv.Itoa(i)})
			}
		})
	}
}

package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// limitEncodingRatio is the speed contract's bound (issue 23) on the
// per-request encoding cost at 1,000 messages over that at 100.
const limitEncodingRatio = 3.0

// encodingRequest is a loop-shaped request: system prompt and task, then
// assistant tool calls each followed by a ~2 KB tool result, and the eleven
// tool definitions of a default run (~9 KB).
func encodingRequest(n int) Request {
	result := strings.Repeat("line of tool output with <angle> & \"quotes\"\n", 48)
	msgs := []Message{{Role: RoleSystem, Content: "You are odek, a careful agent."}, {Role: RoleUser, Content: "Count the words."}}
	for i := 0; len(msgs) < n-1; i++ {
		id := "call_" + strconv.Itoa(i)
		msgs = append(msgs,
			Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Type: "function",
				Function: FunctionCall{Name: "demo__word_count", Arguments: `{"path":"file` + strconv.Itoa(i) + `.go"}`}}}},
			Message{Role: RoleTool, ToolCallID: id, Name: "demo__word_count", Content: result})
	}
	msgs = append(msgs[:n-1], Message{Role: RoleUser, Content: "Go on."})
	var tools []ToolSpec
	for i := range 11 {
		tools = append(tools, ToolSpec{Name: "tool_" + strconv.Itoa(i), Description: strings.Repeat("Does one careful thing. ", 12),
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"a path inside the workspace"},` +
				`"limit":{"type":"integer","minimum":1,"description":"at most this many"},"pattern":{"type":"string"}},"required":["path"]}`)})
	}
	return Request{Model: "m", Messages: msgs, Tools: tools}
}

// encodeGoOpenAI is the request body as odek builds it: go-openai's request
// type, marshalled by encoding/json (what CreateChatCompletionStream does).
func encodeGoOpenAI(req Request) ([]byte, error) { return json.Marshal(toOpenAI(req, true)) }

// preEncoder is a measured alternative, not odek's request path (DECISION 14
// keeps go-openai's): it keeps each message's encoded bytes beside a copy
// of the message, re-encoding one only when it is no longer equal (Go
// compares strings that share their bytes in O(1), so an unchanged history
// costs one comparison per message), and the tool definitions once.
type preEncoder struct {
	msgs  []Message
	enc   [][]byte
	tools []byte
}

func (p *preEncoder) encode(req Request) [][]byte {
	if p.tools == nil {
		p.tools, _ = json.Marshal(toOpenAI(Request{Tools: req.Tools}, true).Tools)
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if i < len(p.msgs) && sameMessage(&p.msgs[i], m) {
			continue
		}
		b, _ := json.Marshal(toOpenAIMessage(m))
		if i < len(p.msgs) {
			p.msgs[i], p.enc[i] = *m, b
		} else {
			p.msgs, p.enc = append(p.msgs, *m), append(p.enc, b)
		}
	}
	p.msgs, p.enc = p.msgs[:len(req.Messages)], p.enc[:len(req.Messages)]
	// the body as segments (written to the connection in turn, never joined)
	out := make([][]byte, 0, 2*len(p.enc)+4)
	out = append(out, []byte(`{"model":"`+req.Model+`","stream":true,"messages":[`))
	for i, b := range p.enc {
		if i > 0 {
			out = append(out, comma)
		}
		out = append(out, b)
	}
	return append(out, []byte(`],"tools":`), p.tools, []byte(`}`))
}

var comma = []byte(",")

// appendEncoder is the alternative that meets the contract: the history
// vouches that its first stable messages are unchanged since the last
// request (a version the loop would bump on any edit, such as a trim), so
// their encoding is one buffer extended by the messages that became stable,
// and a request costs the new messages, not the history.
type appendEncoder struct {
	prefix []byte // the stable messages, encoded and comma-joined
	stable int
	tools  []byte
}

// encode builds the body; the first stable messages of req are vouched for.
func (p *appendEncoder) encode(req Request, stable int) [][]byte {
	if p.tools == nil {
		p.tools, _ = json.Marshal(toOpenAI(Request{Tools: req.Tools}, true).Tools)
	}
	for ; p.stable < stable; p.stable++ {
		if p.stable > 0 {
			p.prefix = append(p.prefix, ',')
		}
		b, _ := json.Marshal(toOpenAIMessage(&req.Messages[p.stable]))
		p.prefix = append(p.prefix, b...)
	}
	out := [][]byte{[]byte(`{"model":"` + req.Model + `","stream":true,"messages":[`), p.prefix}
	for i := stable; i < len(req.Messages); i++ {
		b, _ := json.Marshal(toOpenAIMessage(&req.Messages[i]))
		if i > 0 {
			out = append(out, comma)
		}
		out = append(out, b)
	}
	return append(out, []byte(`],"tools":`), p.tools, []byte(`}`))
}

func sameMessage(a, b *Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Name == b.Name && a.ToolCallID == b.ToolCallID &&
		a.ReasoningContent == b.ReasoningContent && slices.Equal(a.ToolCalls, b.ToolCalls)
}

// BenchmarkRequestEncoding measures the per-request cost of encoding a
// request body at 100 and 1,000 messages, on the chat wire (go-openai's
// ChatCompletionRequest), on the Responses wire (odek's part, and the body
// go-openai writes from it) and through two measured alternatives, a new
// message appended before each request as the loop does, and prints each
// path's 1,000-over-100 ratio beside the limit.
func BenchmarkRequestEncoding(b *testing.B) {
	goOpenAI := func() func(Request) {
		return func(r Request) {
			if _, err := encodeGoOpenAI(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	pre := func() func(Request) {
		p := &preEncoder{}
		return func(r Request) { p.encode(r) }
	}
	appendOnly := func() func(Request) {
		p := &appendEncoder{}
		return func(r Request) { p.encode(r, len(r.Messages)-1) } // all but the new message
	}
	// The Responses wire: odek's part (the request with its items, new
	// messages encoded, earlier ones from the cache) and the whole body as
	// go-openai writes it (encoding/json re-scans every pre-encoded item).
	respItems := func() func(Request) {
		c := New(Options{WireAPI: WireResponses})
		return func(r Request) {
			_, release := c.responsesRequest(r)
			release()
		}
	}
	respBody := func() func(Request) {
		c := New(Options{WireAPI: WireResponses})
		return func(r Request) {
			oreq, release := c.responsesRequest(r)
			if _, err := json.Marshal(oreq); err != nil {
				b.Fatal(err)
			}
			release()
		}
	}
	paths := []struct {
		name string
		enc  func() func(Request)
	}{{"go-openai", goOpenAI}, {"responses-items", respItems}, {"responses-body", respBody},
		{"pre-encoded", pre}, {"append-only", appendOnly}}
	cost := map[string]time.Duration{}
	for _, path := range paths {
		for _, n := range []int{100, 1000} {
			name := path.name + "/" + strconv.Itoa(n)
			b.Run(name, func(b *testing.B) {
				base := encodingRequest(n)
				req := base
				req.Messages = slices.Grow(slices.Clone(base.Messages), 1)
				encode := path.enc()
				encode(req) // a run's earlier requests encoded the history
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					// each request carries the history plus one new message
					req.Messages = append(req.Messages[:n], Message{Role: RoleUser, Content: "Go on " + strconv.Itoa(i)})
					encode(req)
				}
				cost[name] = b.Elapsed() / time.Duration(b.N)
			})
		}
	}
	ratio := func(p string) float64 { return float64(cost[p+"/1000"]) / float64(cost[p+"/100"]) }
	fmt.Printf("per-request encoding cost, 1,000 messages over 100 (limit ≤ %.0f×):\n"+
		"  chat wire, go-openai's body:               %v at 100, %v at 1,000: %.1f×\n"+
		"  responses wire, odek's request and items:  %v at 100, %v at 1,000: %.1f× %s\n"+
		"  responses wire, go-openai's body:          %v at 100, %v at 1,000: %.1f× %s\n"+
		"  (measured alternatives, not a wire) pre-encoded messages: %v at 100, %v at 1,000: %.1f×\n"+
		"  (measured alternatives, not a wire) append-only history:  %v at 100, %v at 1,000: %.1f×",
		limitEncodingRatio, cost["go-openai/100"], cost["go-openai/1000"], ratio("go-openai"),
		cost["responses-items/100"], cost["responses-items/1000"], ratio("responses-items"), within(ratio("responses-items")),
		cost["responses-body/100"], cost["responses-body/1000"], ratio("responses-body"), within(ratio("responses-body")),
		cost["pre-encoded/100"], cost["pre-encoded/1000"], ratio("pre-encoded"),
		cost["append-only/100"], cost["append-only/1000"], ratio("append-only"))
	fmt.Println()
}

// within words a ratio against the limit.
func within(r float64) string {
	if r <= limitEncodingRatio {
		return "ok"
	}
	return "OVER"
}

// The pre-encoded bodies are the same JSON as go-openai's, so the
// comparison is of like with like, and an edited message is re-encoded.
func TestPreEncoderMatchesGoOpenAI(t *testing.T) {
	req := encodingRequest(7)
	p := &preEncoder{}
	a := &appendEncoder{}
	for round := range 4 {
		if round == 2 {
			req.Messages[3].Content = "edited in place" // a trimmed result
			a = &appendEncoder{}                        // the history's version changed
		}
		if round == 3 {
			req.Messages = append(req.Messages, Message{Role: RoleUser, Content: "one more"})
		}
		var got, gotAppend map[string]any
		if err := json.Unmarshal(bytes.Join(p.encode(req), nil), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(bytes.Join(a.encode(req, len(req.Messages)-1), nil), &gotAppend); err != nil {
			t.Fatal(err)
		}
		raw, err := encodeGoOpenAI(req)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		delete(want, "stream_options")
		g, _ := json.Marshal(got)
		ga, _ := json.Marshal(gotAppend)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) || !bytes.Equal(ga, w) {
			t.Fatalf("round %d:\ngot  %s\nappend %s\nwant %s", round, g, ga, w)
		}
	}
}

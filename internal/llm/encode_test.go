package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleRequest() Request {
	return Request{
		Model: "m", MaxTokens: 7,
		Messages: []Message{
			{Role: RoleSystem, Content: "be <brief> & exact"},
			{Role: RoleUser, Content: "task"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "f", Arguments: `{"a":1}`}}}, ReasoningContent: "think"},
			{Role: RoleTool, ToolCallID: "c1", Name: "f", Content: ""},
			{Role: RoleAssistant, Content: "done"},
		},
		Tools:          []ToolSpec{{Name: "f", Description: "does f", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "g"}},
		ResponseFormat: &ResponseFormat{Name: "verdict", Schema: json.RawMessage(`{"type": "object", "title": "<v>"}`), Strict: true},
	}
}

// Our body says what go-openai's marshalling of the same request says.
func TestEncodeMatchesGoOpenAI(t *testing.T) {
	for _, stream := range []bool{false, true} {
		req := sampleRequest()
		body, err := newRequestEncoder().encode(req, stream)
		if err != nil {
			t.Fatal(err)
		}
		oreq, err := toOpenAI(req, stream)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(oreq)
		var got, exp map[string]any
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("body is not JSON: %v\n%s", err, body)
		}
		_ = json.Unmarshal(want, &exp)
		if diff := cmp.Diff(exp, got); diff != "" {
			t.Errorf("stream=%v: body differs from go-openai's (-go-openai +ours):\n%s", stream, diff)
		}
		if strings.Contains(string(body), `\u003c`) {
			t.Errorf("HTML-escaped body: %s", body)
		}
	}
}

func TestEncodeCachesAndEvicts(t *testing.T) {
	e := newRequestEncoder()
	req := sampleRequest()
	first, _ := e.encode(req, true)
	if len(e.msgs) != 5 {
		t.Fatalf("cache has %d entries, want 5", len(e.msgs))
	}
	cached := e.msgs[msgKey{role: keyOf(req.Messages[1].Role), name: keyOf(""), callID: keyOf(""), content: keyOf(req.Messages[1].Content), reasoning: keyOf("")}]
	if cached == nil {
		t.Fatal("user message not cached under its key")
	}
	again, _ := e.encode(req, true)
	if string(first) != string(again) {
		t.Fatalf("second encoding differs:\n%s\n%s", first, again)
	}
	// Replacing a message's content (as trimming will) re-encodes it; the
	// old entry is evicted.
	req.Messages = append([]Message(nil), req.Messages...)
	req.Messages[1].Content = strings.Clone("task, trimmed")
	third, _ := e.encode(req, true)
	if !strings.Contains(string(third), "task, trimmed") || strings.Contains(string(third), `"task"`) {
		t.Fatalf("replaced content not re-encoded: %s", third)
	}
	if len(e.msgs) != 5 {
		t.Errorf("cache has %d entries after eviction, want 5", len(e.msgs))
	}
}

func TestEncodeRejects(t *testing.T) {
	bad := Request{Model: "m", Messages: []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "x"}}}}}
	if _, err := newRequestEncoder().encode(bad, false); err == nil || err.Error() != "message 0: tool call 0 has no function name" {
		t.Errorf("err = %v", err)
	}
	bad = Request{Model: "m", Tools: []ToolSpec{{Name: "t", Parameters: json.RawMessage(`{nope`)}}}
	if _, err := newRequestEncoder().encode(bad, false); err == nil || err.Error() != `tool "t": parameters are not valid JSON` {
		t.Errorf("err = %v", err)
	}
}

// BenchmarkEncode is one request body with 100 messages of history (each a
// few KiB, like tool output), cached as in a run versus encoded from scratch
// as go-openai would.
func BenchmarkEncode(b *testing.B) {
	req := Request{Model: "m"}
	for i := range 100 {
		req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: fmt.Sprint(i), Content: strings.Repeat("line of <tool> output\n", 150)})
	}
	b.Run("cached", func(b *testing.B) {
		e := newRequestEncoder()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.encode(req, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-openai", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oreq, _ := toOpenAI(req, true)
			if _, err := json.Marshal(oreq); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestEncodeResponseFormat(t *testing.T) {
	req := sampleRequest()
	body, err := newRequestEncoder().encode(req, true)
	if err != nil {
		t.Fatal(err)
	}
	want := `"response_format":{"type":"json_schema","json_schema":{"name":"verdict","schema":{"type":"object","title":"<v>"},"strict":true}}`
	if !strings.Contains(string(body), want) {
		t.Fatalf("body lacks %s:\n%s", want, body)
	}
	req.ResponseFormat = nil
	if body, _ = newRequestEncoder().encode(req, true); strings.Contains(string(body), "response_format") {
		t.Fatalf("response_format sent without one asked: %s", body)
	}
}

package cassette

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sseChunks streams text in 5-byte pieces of field (a delta key, or
// "arguments" of tool call 0), as providers split tokens.
func sseChunks(field, text string) []string {
	var out []string
	for i := 0; i < len(text); i += 5 {
		piece := text[i:min(len(text), i+5)]
		delta := map[string]any{field: piece}
		if field == "arguments" {
			delta = map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": piece}}}}
		}
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta}}})
		out = append(out, "data: "+string(b))
	}
	return out
}

// A secret a provider streams across chunks is masked in the assembled
// text of each field; the pieces of a text that needs no masking are kept.
func TestStreamedSecretIsRedactedWhole(t *testing.T) {
	t.Parallel()
	var events []string
	events = append(events, sseChunks("reasoning_content", "I saw sekrit-value in the file.")...)
	events = append(events, sseChunks("content", "It is sekrit-value, done.")...)
	events = append(events, sseChunks("arguments", `{"command":"echo sekrit-value"}`)...)
	events = append(events, sseChunks("reasoning", "plain words")...)
	events = append(events, "data: [DONE]")
	dir := filepath.Join(t.TempDir(), "cas")
	recordLLM(t, dir, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, strings.Join(events, "\n\n")+"\n\n")
	}, `{"model":"m"}`)
	b, err := os.ReadFile(filepath.Join(dir, "llm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ReadLLM(strings.NewReader(string(b)), "llm.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got := assembled(t, entries[0].Response.Events)
	want := map[string]string{
		"reasoning_content": "I saw [REDACTED] in the file.",
		"content":           "It is [REDACTED], done.",
		"arguments":         `{"command":"echo [REDACTED]"}`,
		"reasoning":         "plain words",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: assembled %q, want %q", k, got[k], w)
		}
	}
	if n := len(entries[0].Response.Events); n != len(events) {
		t.Errorf("%d events recorded, want %d", n, len(events))
	}
	if !strings.Contains(strings.Join(entries[0].Response.Events, "\n"), `"reasoning":"plain"`) {
		t.Errorf("a text that needs no masking lost its pieces: %s", b)
	}
}

// assembled joins each delta field's pieces, as a stream parser does.
func assembled(t *testing.T, events []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ev := range events {
		data, _ := strings.CutPrefix(ev, "data: ")
		if data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta map[string]json.RawMessage `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		for k, raw := range chunk.Choices[0].Delta {
			if k == "tool_calls" {
				var calls []struct {
					Function struct{ Arguments string } `json:"function"`
				}
				_ = json.Unmarshal(raw, &calls)
				out["arguments"] += calls[0].Function.Arguments
				continue
			}
			var s string
			_ = json.Unmarshal(raw, &s)
			out[k] += s
		}
	}
	return out
}

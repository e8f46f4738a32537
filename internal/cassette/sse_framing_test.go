package cassette

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEventsNotOneDataLineKeptAsText: an event that is not one JSON data
// line is recorded as the text it came as (masked as text), never
// re-framed as a data line: a bare JSON line without "data: ", a data
// field whose JSON spans two lines, and an event with a type line. A
// one-line JSON data event is recorded as a data line (masked as JSON).
func TestEventsNotOneDataLineKeptAsText(t *testing.T) {
	t.Parallel()
	events := []string{
		`{"note":"sekrit-value"}`,
		"data: {\"note\":\n\"sekrit-value\"}",
		"event: ping\ndata: {\"note\":\"sekrit-value\"}",
		`data: {"note":"sekrit-value"}`,
		"data: [DONE]",
	}
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
	want := []string{
		`{"note":"[REDACTED]"}`,
		"data: {\"note\":\n\"[REDACTED]\"}",
		"event: ping\ndata: {\"note\":\"[REDACTED]\"}",
		`data: {"note":"[REDACTED]"}`,
		"data: [DONE]",
	}
	got := entries[0].Response.Events
	if len(got) != len(want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %q, want %q", i, got[i], want[i])
		}
	}
}

package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/msgkind"
)

// Tests that close survivors of mutation testing (scripts/mutate.sh): the
// storage cap's byte arithmetic, checked against encoding/json itself.

func capHistory() []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "task"}}
	for i := range 6 {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Type: "function", Function: llm.FunctionCall{Name: "read_file", Arguments: `{"path":"a"}`}}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: strings.Repeat("r", 40*(i+1))},
			llm.Message{Role: llm.RoleSystem, Content: fmt.Sprintf("note %d", i)},
		)
	}
	return append(msgs, llm.Message{Role: llm.RoleAssistant, Content: "done"})
}

func TestArrayBytesIsTheJSONSize(t *testing.T) {
	msgs := capHistory()
	for n := 0; n <= len(msgs); n++ {
		sizes, err := messageSizes(msgs[:n])
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(msgs[:n])
		if n == 0 {
			b = []byte("[]")
		}
		if got := arrayBytes(sizes); got != len(b) {
			t.Fatalf("arrayBytes of %d messages = %d, json.Marshal = %d", n, got, len(b))
		}
	}
}

// For every budget the capped history fits, keeps a storage marker with the
// right count when one fits, drops whole groups only, and is tight: the
// budget of exactly its own size gives the same result.
func TestCapMessagesFitsAndIsTight(t *testing.T) {
	msgs := capHistory()
	full, _ := json.Marshal(msgs)
	for budget := int64(len(full)); ; budget -= 7 {
		out, dropped, err := capMessages(msgs, budget, 1<<20)
		if err != nil {
			if budget > 400 {
				t.Fatalf("budget %d: %v", budget, err)
			}
			break // too small even for the messages that are always kept
		}
		b, _ := json.Marshal(out)
		if int64(len(b)) > budget {
			t.Fatalf("budget %d: capped history is %d bytes", budget, len(b))
		}
		again, dropped2, err := capMessages(msgs, int64(len(b)), 1<<20)
		if err != nil || dropped2 != dropped || len(again) != len(out) {
			t.Fatalf("budget %d: at its own size %d the cap dropped %d groups (%d messages), not %d (%d): %v", budget, len(b), dropped2, len(again), dropped, len(out), err)
		}
		markers := 0
		for _, m := range out {
			if m.Kind == msgkind.StorageLimit {
				markers++
				if m.Count != dropped {
					t.Errorf("budget %d: marker counts %d, dropped %d", budget, m.Count, dropped)
				}
			}
		}
		if markers != 1 && budget > 500 || markers > 1 {
			t.Errorf("budget %d: %d storage markers", budget, markers)
		}
		if markers == 1 && (out[0].Content != "sys" || out[1].Kind != msgkind.StorageLimit) {
			t.Errorf("budget %d: the marker does not follow the leading system message: %+v", budget, out[:2])
		}
		kept := 0
		for _, m := range out {
			if m.Role == llm.RoleSystem && strings.HasPrefix(m.Content, "note ") {
				kept++
			}
		}
		if kept != 6 {
			t.Errorf("budget %d: %d lone system messages kept, want all 6", budget, kept)
		}
		for i, m := range out {
			if m.Role == llm.RoleTool && (i == 0 || len(out[i-1].ToolCalls) == 0) {
				t.Errorf("budget %d: a tool result lost its call", budget)
			}
		}
	}
	// With room for everything nothing is dropped, the task included.
	out, dropped, err := capMessages(msgs, int64(len(full))+1000, 1<<20)
	if err != nil || dropped != 0 || len(out) != len(msgs)+1 || out[2].Content != "task" {
		t.Fatalf("roomy budget: dropped %d of %d messages, %v", dropped, len(out), err)
	}
	// A carried marker's count adds to this call's drops.
	withOld := append([]llm.Message{msgs[0], removalMarker(msgkind.StorageLimit, 5, "old")}, msgs[1:]...)
	out, dropped, err = capMessages(withOld, int64(len(full))-200, 1<<20)
	if err != nil || dropped == 0 {
		t.Fatalf("dropped %d, %v", dropped, err)
	}
	if out[1].Kind != msgkind.StorageLimit || out[1].Count != 5+dropped {
		t.Errorf("carried marker: %+v, want count %d", out[1], 5+dropped)
	}
}

package session

import (
	"encoding/json"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// Reasoning items (the Responses wire's) are stored as the provider sent
// them, so a continued session sends the same bytes; one that holds a
// secret is left out whole rather than stored masked, and the caller's
// history keeps it.
func TestReasoningItemsStored(t *testing.T) {
	t.Parallel()
	st, _ := newTestStore(t)
	opaque := json.RawMessage(`{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAAAB+/opaque=="}`)
	secret := json.RawMessage(`{"id":"rs_2","type":"reasoning","summary":[{"type":"summary_text","text":"the key is SECRET-VALUE"}],"encrypted_content":"the key is SECRET-VALUE"}`)
	msgs := conversation(1, "body")
	msgs[2].ReasoningItems = []json.RawMessage{opaque, secret}
	sess, _, err := st.Create(New{Model: "m", Task: "the task", Messages: msgs[:2]})
	if err != nil {
		t.Fatal(err)
	}
	sess.Update(msgs)
	if _, err := st.Save(sess); err != nil {
		t.Fatal(err)
	}
	if got := msgs[2].ReasoningItems; len(got) != 2 {
		t.Fatalf("the caller's history lost an item: %q", got)
	}
	loaded, err := st.Load(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := loaded.Messages[2].ReasoningItems
	if len(got) != 1 || string(got[0]) != string(opaque) {
		t.Fatalf("stored items %q, want only %s byte for byte", got, opaque)
	}
	if !loaded.Changed(msgs) {
		t.Error("a history whose reasoning items differ reads as unchanged")
	}
	changed := append([]llm.Message(nil), msgs...)
	changed[2].ReasoningItems = nil
	sess.Update(msgs)
	if !sess.Changed(changed) {
		t.Error("dropping a reasoning item is not a change")
	}
}

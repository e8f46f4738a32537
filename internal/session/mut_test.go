package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// Every field of a message counts as a change, so a changed message is
// redacted again at the next save.
func TestSameMessageEveryField(t *testing.T) {
	base := llm.Message{Role: llm.RoleAssistant, Kind: msgkind.Plan, Count: 1, Content: "c", ReasoningContent: "r", Name: "n", ToolCallID: "i",
		ToolCalls: []llm.ToolCall{{ID: "a", Function: llm.FunctionCall{Name: "f", Arguments: "{}"}}}}
	if !sameMessage(base, base) {
		t.Fatal("a message differs from itself")
	}
	for name, change := range map[string]func(*llm.Message){
		"role": func(m *llm.Message) { m.Role = llm.RoleUser }, "kind": func(m *llm.Message) { m.Kind = msgkind.Digest },
		"count": func(m *llm.Message) { m.Count = 2 }, "content": func(m *llm.Message) { m.Content = "d" },
		"reasoning": func(m *llm.Message) { m.ReasoningContent = "s" }, "name": func(m *llm.Message) { m.Name = "o" },
		"call id": func(m *llm.Message) { m.ToolCallID = "j" }, "calls": func(m *llm.Message) { m.ToolCalls = nil },
		"call args": func(m *llm.Message) {
			m.ToolCalls = []llm.ToolCall{{ID: "a", Function: llm.FunctionCall{Name: "f", Arguments: `{"x":1}`}}}
		},
	} {
		m := base
		change(&m)
		if sameMessage(base, m) || sameMessage(m, base) {
			t.Errorf("a change of %s alone is not seen", name)
		}
	}
	var s Session
	s.raw = []llm.Message{base}
	if s.Changed([]llm.Message{base}) {
		t.Error("the same history is reported changed")
	}
	if !s.Changed([]llm.Message{base, base}) || !s.Changed(nil) {
		t.Error("a history of another length is not reported changed")
	}
}

// Stale temporary files (a crashed save) go after an hour; a fresh one, which
// a concurrent save may be writing, stays.
func TestRemoveStaleTempsKeepsFreshOnes(t *testing.T) {
	st, c := newTestStore(t)
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale, fresh, other := filepath.Join(st.dir, ".a.tmp-1"), filepath.Join(st.dir, ".b.tmp-2"), filepath.Join(st.dir, "c.tmp-3")
	for _, p := range []string{stale, fresh, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := c.t.Add(-tempMaxAge - time.Minute)
	for _, p := range []string{stale, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	st.removeStaleTemps()
	for p, want := range map[string]bool{stale: false, fresh: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// A session of exactly the storage limit is saved whole and loads.
func TestSessionAtExactlyTheLimit(t *testing.T) {
	home := t.TempDir()
	// A fixed clock: each save writes updated_at, whose text is a byte
	// shorter when its fraction of a second ends in a zero.
	now := func() time.Time { return time.Date(2026, 12, 2, 4, 44, 0, 123456789, time.UTC) }
	big := NewStore(Options{Dir: home + "/sessions", KeyPath: home + "/" + KeyFile, Now: now})
	msgs := append([]llm.Message{system("sys"), user("task")}, toolGroup("g", 2, strings.Repeat("b", 500))...)
	sess, _, err := big.Create(New{Task: "task", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := big.Save(sess); err != nil { // the size a save of this session writes
		t.Fatal(err)
	}
	size := int64(sess.FileSize())
	exact := NewStore(Options{Dir: home + "/sessions", KeyPath: home + "/" + KeyFile, MaxBytes: size, Now: now})
	if _, err := exact.Save(sess); err != nil {
		t.Fatal(err)
	}
	if sess.StoredCount() != len(msgs) || int64(sess.FileSize()) != size {
		t.Fatalf("at exactly the limit the save kept %d of %d messages (%d bytes, limit %d)", sess.StoredCount(), len(msgs), sess.FileSize(), size)
	}
	if _, err := exact.Load(sess.ID); err != nil {
		t.Fatalf("a session of exactly the limit does not load: %v", err)
	}
	under := NewStore(Options{Dir: home + "/sessions", KeyPath: home + "/" + KeyFile, MaxBytes: size - 1, Now: now})
	if _, err := under.Load(sess.ID); err == nil {
		t.Fatal("a session over the limit loaded")
	}
}

// sign keeps an empty object valid JSON, and a bad key file says what a key
// file must hold.
func TestSignAndKeyFileDetails(t *testing.T) {
	key := make([]byte, keyBytes)
	for _, data := range []string{"{}", `{"id":"x"}`} {
		out, m := sign(key, []byte(data))
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil || v["mac"] != m {
			t.Errorf("sign(%s) = %s: %v", data, out, err)
		}
	}
	home := t.TempDir()
	kp := filepath.Join(home, KeyFile)
	if err := os.WriteFile(kp, []byte("abcd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := NewStore(Options{Dir: home + "/sessions", KeyPath: kp})
	_, _, err := st.Create(New{Task: "t", Messages: []llm.Message{user("t")}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("want %d hex digits and a newline", 2*keyBytes)) {
		t.Errorf("a short key file: %v", err)
	}
}

// The storage cap drops the oldest droppable group first: the task, before
// any tool step, when it is not a lone system message.
func TestCapMessagesDropsOldestFirst(t *testing.T) {
	msgs := capHistory()
	full, _ := json.Marshal(msgs)
	out, dropped, err := capMessages(msgs, int64(len(full))-50, 1<<20)
	if err != nil || dropped < 1 {
		t.Fatalf("dropped %d, %v; want some", dropped, err)
	}
	for _, m := range out {
		if m.Content == "task" {
			t.Error("the oldest group (the task) was kept while a newer one went")
		}
	}
}

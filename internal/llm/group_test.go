package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// GroupEnd is the one grouping rule: loop.Regroup and the session's
// trimming and storage cap both split transcripts with it.
func TestGroupEnd(t *testing.T) {
	call := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: "t"}})
		}
		return m
	}
	result := func(id string) Message { return Message{Role: RoleTool, ToolCallID: id, Content: "r"} }
	sys := Message{Role: RoleSystem, Content: "s"}
	usr := Message{Role: RoleUser, Content: "u"}
	reply := Message{Role: RoleAssistant, Content: "a"}
	for _, tc := range []struct {
		name     string
		msgs     []Message
		at       int
		end      int
		complete bool
	}{
		{"system alone", []Message{sys, usr}, 0, 1, true},
		{"user alone", []Message{sys, usr}, 1, 2, true},
		{"reply without calls", []Message{reply, usr}, 0, 1, true},
		{"a reply without calls leaves a stray result apart", []Message{reply, result("x")}, 0, 1, true},
		{"a user message leaves a stray result apart", []Message{usr, result("x")}, 0, 1, true},
		{"call and its result", []Message{call("a"), result("a"), usr}, 0, 2, true},
		{"two calls, two results", []Message{call("a", "b"), result("a"), result("b"), reply}, 0, 3, true},
		{"two calls, one result", []Message{call("a", "b"), result("a"), usr}, 0, 2, false},
		{"call at the end", []Message{usr, call("a")}, 1, 2, false},
		{"results end at a non-tool", []Message{call("a"), result("a"), reply, result("x")}, 0, 2, true},
		{"a stray result is its own group", []Message{result("x"), usr}, 0, 1, true},
		{"more results than calls stay together", []Message{call("a"), result("a"), result("b")}, 0, 3, true},
		{"past the end", []Message{usr}, 1, 1, true},
		{"empty", nil, 0, 0, true},
	} {
		end, complete := GroupEnd(tc.msgs, tc.at)
		if end != tc.end || complete != tc.complete {
			t.Errorf("%s: GroupEnd(%d) = %d, %v; want %d, %v", tc.name, tc.at, end, complete, tc.end, tc.complete)
		}
	}
}

// A marker's kind and count stay on odek's side: the provider gets role
// and text only.
func TestKindIsNotSent(t *testing.T) {
	req := Request{Model: "m", Messages: []Message{{Role: RoleSystem, Content: "[x: 3]", Kind: "session_trimmed", Count: 3}}}
	b, err := json.Marshal(toOpenAI(req, false))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); strings.Contains(s, "kind") || strings.Contains(s, "count") || !strings.Contains(s, `"[x: 3]"`) {
		t.Errorf("wire request %s", s)
	}
}

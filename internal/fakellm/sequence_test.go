package fakellm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSequenceError(t *testing.T) {
	call := func(ids ...string) RecordedMessage {
		m := RecordedMessage{Role: "assistant"}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, RecordedToolCall{ID: id, Type: "function", Name: "f"})
		}
		return m
	}
	res := func(id string) RecordedMessage { return RecordedMessage{Role: "tool", ToolCallID: id} }
	user := RecordedMessage{Role: "user", Content: "u"}
	sys := RecordedMessage{Role: "system", Content: "s"}
	for _, c := range []struct {
		name      string
		msgs      []RecordedMessage
		wantParam string // "" when valid
		wantText  string
	}{
		{"empty", nil, "", ""},
		{"plain", []RecordedMessage{sys, user, {Role: "assistant", Content: "a"}}, "", ""},
		{"answered in any order", []RecordedMessage{user, call("a", "b"), res("b"), res("a"), user}, "", ""},
		{"two groups", []RecordedMessage{user, call("a"), res("a"), call("b"), res("b")}, "", ""},
		{"orphan first", []RecordedMessage{res("a"), user}, "messages.[0].role", "must be a response"},
		{"orphan after user", []RecordedMessage{user, call("a"), res("a"), user, res("a")}, "messages.[4].role", "must be a response"},
		{"wrong id", []RecordedMessage{user, call("a"), res("x")}, "messages.[2].role", "must be a response"},
		{"answered twice", []RecordedMessage{user, call("a"), res("a"), res("a")}, "messages.[3].role", "must be a response"},
		{"after a plain assistant", []RecordedMessage{user, {Role: "assistant", Content: "a"}, res("a")}, "messages.[2].role", "must be a response"},
		{"dangling at the end", []RecordedMessage{user, call("a", "b"), res("a")}, "messages.[3].role", "did not have response messages: b"},
		{"dangling before user", []RecordedMessage{user, call("a", "b"), user}, "messages.[2].role", "did not have response messages: a, b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, param := sequenceError(c.msgs)
			if param != c.wantParam || !strings.Contains(msg, c.wantText) || (c.wantParam == "") != (msg == "") {
				t.Errorf("sequenceError = %q, %q; want param %q and a message holding %q", msg, param, c.wantParam, c.wantText)
			}
		})
	}
}

// TestServerRefusesInvalidSequence: the check runs on the wire, answers
// OpenAI's 400 and consumes no turn.
func TestServerRefusesInvalidSequence(t *testing.T) {
	s, err := Start(&Script{Turns: []Turn{{Content: "hi"}}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	send := func(body string) (int, string) {
		resp, b, err := post(t, s, body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	code, body := send(`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c1","content":"r"}]}`)
	var e struct {
		Error struct{ Message, Type, Param string }
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || code != 400 || e.Error.Type != "invalid_request_error" || e.Error.Param != "messages.[1].role" {
		t.Fatalf("orphan tool message: %d %s", code, body)
	}
	if code, body := send(`{"model":"m","messages":[{"role":"user","content":"x"}]}`); code != 200 || !strings.Contains(body, "hi") {
		t.Fatalf("a valid request after the refusal: %d %s (the refusal consumed the turn?)", code, body)
	}
}

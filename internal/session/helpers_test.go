package session

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/llm"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestStore(t testing.TB) (*Store, *clock) {
	t.Helper()
	// Near the real time: List compares index entries with file times.
	c := &clock{t: time.Now().UTC().Truncate(time.Second)}
	home := t.TempDir()
	return NewStore(Options{Dir: home + "/sessions", Now: c.now, Redact: testRedact, KeyPath: home + "/" + KeyFile}), c
}

// testRedact masks the word "SECRET-VALUE".
func testRedact(s string) string { return strings.ReplaceAll(s, "SECRET-VALUE", "[REDACTED]") }

func user(s string) llm.Message   { return llm.Message{Role: llm.RoleUser, Content: s} }
func system(s string) llm.Message { return llm.Message{Role: llm.RoleSystem, Content: s} }
func answer(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: s} }

// toolGroup is an assistant message calling n tools and their results.
func toolGroup(tag string, n int, body string) []llm.Message {
	a := llm.Message{Role: llm.RoleAssistant}
	var out []llm.Message
	for k := range n {
		id := fmt.Sprintf("%s-%d", tag, k)
		a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: "t", Arguments: `{"k":1}`}})
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "t", Content: body})
	}
	return append([]llm.Message{a}, out...)
}

// conversation is system, task, then n tool groups of two calls, then an answer.
func conversation(n int, body string) []llm.Message {
	msgs := []llm.Message{system("You are odek."), user("the task")}
	for i := range n {
		msgs = append(msgs, toolGroup(fmt.Sprint("g", i), 2, body)...)
	}
	return append(msgs, answer("done"))
}

// checkPaired fails when a tool message is not answered for by the
// assistant message before it, or an assistant tool call has no answer.
func checkPaired(t *testing.T, msgs []llm.Message) {
	t.Helper()
	pending := map[string]bool{}
	for i, m := range msgs {
		switch {
		case m.Role == llm.RoleTool:
			if !pending[m.ToolCallID] {
				t.Fatalf("message %d: tool result %q without its assistant tool call", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		case len(pending) > 0:
			t.Fatalf("message %d: tool calls %v without results", i, pending)
		}
		for _, c := range m.ToolCalls {
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		t.Fatalf("dangling tool calls at the end: %v", pending)
	}
}

package loop

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/msgkind"
)

func sysMsg(s string) llm.Message  { return llm.Message{Role: llm.RoleSystem, Content: s} }
func userMsg(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

// toolStep is one assistant message calling n tools, and their results.
func toolStep(tag string, n int, body string) []llm.Message {
	a := llm.Message{Role: llm.RoleAssistant, Content: "step " + tag}
	var out []llm.Message
	for k := range n {
		id := fmt.Sprintf("%s-%d", tag, k)
		a.ToolCalls = append(a.ToolCalls, tc(id, "t", `{}`))
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "t", Content: body})
	}
	return append([]llm.Message{a}, out...)
}

// historyOf builds a history of system, task, then steps tool steps.
func historyOf(steps int, body string) *History {
	h := NewHistory(sysMsg("You are odek."), userMsg("the task"))
	for i := range steps {
		h.Append(toolStep(fmt.Sprint("g", i), 2, body)...)
	}
	return h
}

// assertPaired fails when a request would send a tool message without the
// assistant tool call before it, or a tool call without its result.
func assertPaired(t testing.TB, msgs []llm.Message) {
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
			t.Fatalf("message %d (%s): tool calls %v left without results", i, m.Role, pending)
		}
		for _, c := range m.ToolCalls {
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		t.Fatalf("dangling tool calls: %v", pending)
	}
}

func contents(msgs []llm.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
		if len(out[i]) > 40 {
			out[i] = out[i][:40]
		}
	}
	return out
}

func TestEstimate(t *testing.T) {
	m := llm.Message{Role: "assistant", Content: "abcde", ToolCalls: []llm.ToolCall{tc("id1", "read", `{"a":1}`)}}
	// 50 + ceil(5/4) + 30 + ceil(3/4) + ceil(4/4) + ceil(7/4)
	if got := messageTokens(&m); got != 50+2+30+1+1+2 {
		t.Errorf("messageTokens = %d", got)
	}
	specs := []llm.ToolSpec{{Name: "read", Description: "Reads.", Parameters: []byte(`{"type":"object"}`)}}
	if got := EstimateTools(specs); got != 30+1+2+5 {
		t.Errorf("EstimateTools = %d", got)
	}
	if got := EstimateMessages([]llm.Message{m, {Role: "user"}}); got != 86+50 {
		t.Errorf("EstimateMessages = %d", got)
	}
}

func TestKnownContextWindow(t *testing.T) {
	for model, want := range map[string]int{
		"gpt-4o": 128000, "gpt-4o-mini-2024-07-18": 128000, "openai/gpt-4.1-mini": 1047576,
		"gpt-4": 8192, "gpt-4-turbo-preview": 128000, "claude-sonnet-4-5": 200000,
		"deepseek-chat": 65536, "llama3.1:8b": 0, "qwen2.5-coder": 0, "": 0, "GPT-4O": 128000,
	} {
		if got := KnownContextWindow(model); got != want {
			t.Errorf("KnownContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

func TestViewUntrimmedIsTheHistory(t *testing.T) {
	h := historyOf(3, "x")
	tr := newTrimmer(100000, 0)
	if d, n := tr.proactive(h); d != nil || n != 0 {
		t.Errorf("trimmed a short history: %v %d", d, n)
	}
	v := tr.view(h)
	if &v[0] != &h.Messages()[0] {
		t.Error("an untrimmed view copies the history")
	}
	if d, n := newTrimmer(0, 0).proactive(historyOf(50, strings.Repeat("x", 5000))); d != nil || n != 0 {
		t.Error("trimmed with an unknown window")
	}
}

func TestProactiveTruncatesThenDrops(t *testing.T) {
	big := strings.Repeat("b", 4000) // 1000 tokens
	h := historyOf(6, big)           // 12 results of ~1000 tokens
	tr := newTrimmer(10000, 200)     // budget 7500 - 200
	dropped, truncated := tr.proactive(h)
	// ~13,300 tokens over a target of 7,180: seven truncations of ~984 each.
	if truncated != 7 || dropped != nil {
		t.Fatalf("dropped %v, truncated %d; want the 7 oldest results truncated, nothing dropped", dropped, truncated)
	}
	v := tr.view(h)
	assertPaired(t, v)
	if est := EstimateMessages(v); est > tr.budget() {
		t.Errorf("estimate %d over budget %d", est, tr.budget())
	}
	var whole int
	for _, m := range v {
		if m.Role == llm.RoleTool && m.Content == big {
			whole++
		}
	}
	if whole != 12-7 {
		t.Errorf("%d whole results, want 5", whole)
	}
	want := "[Context trimmed: 7 tool output(s) truncated, 0 prior message group(s) dropped to fit the model's context window.]"
	if v[1].Role != llm.RoleSystem || v[1].Content != want || v[2].Content != "the task" {
		t.Errorf("marker: %q then %q", v[1].Content, v[2].Content)
	}

	// The conversation goes on: now groups go, oldest first, whole.
	for i := range 12 {
		h.Append(toolStep(fmt.Sprint("n", i), 1, big)...)
	}
	dropped, truncated = tr.proactive(h)
	if len(dropped) == 0 || dropped[0] != 2 {
		t.Fatalf("dropped %v (truncated %d), want the oldest groups from group 2", dropped, truncated)
	}
	v = tr.view(h)
	assertPaired(t, v)
	if v[0].Content != "You are odek." || v[2].Content != "the task" {
		t.Errorf("protected head lost: %q", contents(v[:3]))
	}
	if got := v[len(v)-2:]; got[0].Content != "step n11" || got[1].Content != big {
		t.Errorf("newest group changed: %q", contents(got))
	}
	if est := EstimateMessages(v); est > tr.budget() {
		t.Errorf("estimate %d over budget %d", est, tr.budget())
	}
	if !strings.Contains(v[1].Content, fmt.Sprintf("%d prior message group(s) dropped", len(dropped))) {
		t.Errorf("marker %q", v[1].Content)
	}
}

func TestMarkerBeforeLatestUserAndPlanKept(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := historyOf(5, big)
	h.upsertPinned(msgkind.Plan, planPrefix+" v1 — 0/1 done.]")
	h.Append(llm.Message{Role: llm.RoleAssistant, Content: "first answer"})
	h.Append(userMsg("next task"))
	h.Append(toolStep("c", 1, big)...)
	tr := newTrimmer(3000, 0)
	tr.proactive(h)
	v := tr.view(h)
	assertPaired(t, v)
	got := contents(v)
	if got[0] != "You are odek." || got[1] != "the task" || !strings.HasPrefix(got[2], planPrefix) {
		t.Errorf("head %q", got[:3])
	}
	for i, m := range v {
		if m.Content == "next task" {
			if !strings.HasPrefix(v[i-1].Content, trimmedPrefix) {
				t.Errorf("marker not before the latest user message: %q", got)
			}
			return
		}
	}
	t.Errorf("latest user message dropped: %q", got)
}

func TestSurvival(t *testing.T) {
	h := historyOf(5, "r")
	h.upsertPinned(msgkind.Plan, planPrefix+" v1]")
	h.Append(llm.Message{Role: llm.RoleAssistant, Content: "answer one"})
	h.Append(userMsg("second task"))
	h.Append(toolStep("x", 1, "r")...)
	h.Append(sysMsg("a hint"))
	tr := newTrimmer(0, 0) // survival needs no known window
	removed := tr.survive(h)
	// Dropped: the groups g0..g3 (3 messages each) and "answer one" and the hint.
	if removed != 4*3+2 {
		t.Errorf("removed %d messages", removed)
	}
	v := tr.view(h)
	assertPaired(t, v)
	want := []string{
		"You are odek.",
		"[Context trimmed to survive: 14 earlier message(s) were removed after the provider rejected the request as too long for the model's context window.]"[:40],
		"the task", planPrefix + " v1]", "step g4", "r", "r", "second task", "step x", "r",
		"[Context survival mode: the conversation was cut to its most recent steps"[:40],
	}
	if diff := cmp.Diff(want, contents(v)); diff != "" {
		t.Errorf("survival view (-want +got):\n%s", diff)
	}
	if tr.factor != trimFactorStrict {
		t.Errorf("factor %v after survival", tr.factor)
	}
	if tr.survive(h) != 0 {
		t.Error("a second survival found more to remove")
	}
	// New steps come after the survival note.
	h.Append(toolStep("y", 1, "r")...)
	if v := tr.view(h); v[len(v)-2].Content != "step y" || !strings.HasPrefix(v[len(v)-3].Content, survivalPrefix) {
		t.Errorf("after survival: %q", contents(v))
	}
}

func TestPinnedInsertShiftsTrimState(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := historyOf(8, big)
	tr := newTrimmer(8000, 0)
	tr.proactive(h)
	before := contents(tr.view(h))
	g, m := h.upsertPinned(msgkind.Plan, planPrefix+" v1]")
	if g != 2 || m != 2 {
		t.Fatalf("inserted at group %d message %d", g, m)
	}
	tr.inserted(g, m)
	after := contents(tr.view(h))
	want := append(append(append([]string(nil), before[:3]...), planPrefix+" v1]"), before[3:]...)
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("view after the plan insert (-want +got):\n%s", diff)
	}
	if g, _ := h.upsertPinned(msgkind.Plan, planPrefix+" v2]"); g != -1 || h.Messages()[2].Content != planPrefix+" v2]" {
		t.Errorf("update in place: group %d, %q", g, h.Messages()[2].Content)
	}
}

// TestTrimNeverBreaksPairs trims random histories with random windows, in
// both modes, and checks every view.
func TestTrimNeverBreaksPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		h := NewHistory(sysMsg("sys"), userMsg("task"))
		tr := newTrimmer(500+rng.IntN(20000), rng.IntN(300))
		for step := range 2 + rng.IntN(30) {
			switch rng.IntN(6) {
			case 0:
				h.Append(userMsg(strings.Repeat("u", rng.IntN(3000))))
			case 1:
				h.Append(sysMsg("hint"))
			case 2:
				g, m := h.upsertPinned(msgkind.Plan, fmt.Sprintf("%s v%d]", planPrefix, step))
				if g >= 0 {
					tr.inserted(g, m)
				}
			default:
				h.Append(toolStep(fmt.Sprint(trial, "-", step), 1+rng.IntN(3), strings.Repeat("r", rng.IntN(9000)))...)
			}
			if rng.IntN(8) == 0 {
				tr.survive(h)
			} else {
				tr.proactive(h)
			}
			if rng.IntN(10) == 0 {
				tr.digest = fmt.Sprintf("%s digest %d]", digestPrefix, step)
			}
			v := tr.view(h)
			assertPaired(t, v)
			if got, want := tr.estimate(h), EstimateMessages(v); got != want {
				t.Fatalf("trial %d: estimate %d, the view's %d", trial, got, want)
			}
			if v[0].Content != "sys" {
				t.Fatalf("trial %d: system message lost", trial)
			}
			if !hasContent(v, "task") {
				t.Fatalf("trial %d: the task was dropped", trial)
			}
			if hasPrefix(h.Messages(), planPrefix) && !hasPrefix(v, planPrefix) {
				t.Fatalf("trial %d: the plan was dropped", trial)
			}
		}
	}
}

func hasContent(msgs []llm.Message, s string) bool {
	for _, m := range msgs {
		if m.Content == s {
			return true
		}
	}
	return false
}

func hasPrefix(msgs []llm.Message, p string) bool {
	for _, m := range msgs {
		if m.Role == llm.RoleSystem && strings.HasPrefix(m.Content, p) {
			return true
		}
	}
	return false
}

func TestIsContextLength(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&llm.ContextLengthError{Status: 400, Message: "x"}, true},
		{fmt.Errorf("llm: Bad Request (status 400): This model's maximum context length is 8192 tokens"), true},
		{fmt.Errorf("prompt is too long: Input is too long for requested model"), true},
		{fmt.Errorf("llm: Internal Server Error (status 500)"), false},
		{nil, false},
	} {
		if got := isContextLength(tc.err); got != tc.want {
			t.Errorf("isContextLength(%v) = %v", tc.err, got)
		}
	}
}

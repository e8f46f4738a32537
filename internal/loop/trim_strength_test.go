package loop

import (
	"fmt"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/msgkind"
)

// These tests close survivors of hand mutation (scripts/hand-mutate.sh) of
// the trimming: what proactive trimming must never drop, however small the
// budget.

// With a budget nothing fits in, proactive trimming still keeps the system
// prompt, the task, the latest user message (here older than the newest
// groups), the plan and the two newest groups; it drops everything else.
func TestProactiveKeepsTheProtectedGroups(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := historyOf(3, big)
	h.upsertPinned(msgkind.Plan, planPrefix+" v1 — 0/1 done.]")
	h.Append(llm.Message{Role: llm.RoleAssistant, Content: "first answer"})
	h.Append(userMsg("next task"))
	for i := range 4 {
		h.Append(toolStep(fmt.Sprint("n", i), 1, big)...)
	}
	tr := newTrimmer(1000, 0)
	dropped, _ := tr.proactive(h)
	if len(dropped) == 0 {
		t.Fatal("nothing dropped")
	}
	v := tr.view(h)
	assertPaired(t, v)
	var got []string
	for _, m := range v {
		got = append(got, m.Content)
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{"You are odek.", "the task", planPrefix + " v1", "next task", "step n2", "step n3"} {
		if !strings.Contains(joined, want) {
			t.Errorf("%q was dropped: %q", want, contents(v))
		}
	}
	for _, gone := range []string{"step g0", "step g1", "step g2", "first answer", "step n0", "step n1"} {
		if strings.Contains(joined, gone) {
			t.Errorf("%q was kept: %q", gone, contents(v))
		}
	}
}

// Each phrase providers use for an over-long request is recognised.
func TestEveryContextLengthPhrase(t *testing.T) {
	for _, msg := range []string{
		"error: context_length_exceeded", "the context length was exceeded", "token limit reached",
		"exceeds the context window", "max_input_tokens exceeded", "input length too large",
		"too many tokens in the request", "the input is too long", "please reduce the length of the messages",
	} {
		if !isContextLength(fmt.Errorf("llm: %s", msg)) {
			t.Errorf("%q is not recognised", msg)
		}
	}
}

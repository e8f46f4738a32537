package loop

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/msgkind"
)

// These tests pin where the markers, the digest and the protected messages
// sit in the view a request sends, message by message.

// The digest goes once, right after the task (the protected head), not
// after the latest user message or any other group.
func TestDigestSentOnceAfterTheTask(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := historyOf(6, big)
	h.Append(userMsg("next task"))
	h.Append(toolStep("c", 1, "small")...)
	tr := newTrimmer(4000, 0)
	if dropped, _ := tr.proactive(h); len(dropped) == 0 {
		t.Fatal("nothing dropped")
	}
	digest := digestPrefix + " a summary of 2 earlier message group(s).]\nthe summary"
	tr.digest = digest
	v := tr.view(h)
	assertPaired(t, v)
	var at []int
	for i, m := range v {
		if m.Kind == msgkind.Digest {
			at = append(at, i)
		}
	}
	if len(at) != 1 || v[at[0]].Content != digest || v[at[0]-1].Content != "the task" {
		t.Errorf("digest at %v, want once after the task: %q", at, contents(v))
	}
	if got, want := tr.estimate(h), EstimateMessages(v); got != want {
		t.Errorf("estimate %d, the view's %d", got, want)
	}
}

// A run without a system prompt starts with the task: it is the first user
// message, protected like any task, and the digest follows it, however many
// user messages come later.
func TestTaskWithoutSystemPromptIsProtected(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := NewHistory(userMsg("the task"))
	for i := range 3 {
		h.Append(toolStep(fmt.Sprint("g", i), 1, big)...)
	}
	h.Append(userMsg("second task"))
	for i := range 3 {
		h.Append(toolStep(fmt.Sprint("h", i), 1, big)...)
	}
	h.Append(userMsg("third task"))
	h.Append(toolStep("c", 1, "small")...)
	tr := newTrimmer(1000, 0) // nothing but the protected groups fits
	tr.proactive(h)
	tr.digest = digestPrefix + " summary]"
	want := []string{
		"the task", digestPrefix + " summary]",
		"[Context trimmed: 3 tool output(s) truncated, 7 prior message group(s) dropped to fit the model's context window.]"[:40],
		"third task", "step c", "small",
	}
	v := tr.view(h)
	assertPaired(t, v)
	if diff := cmp.Diff(want, contents(v)); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}
}

// A plan that first appears after a survival goes after the task, and the
// survival note stays after the groups that survival kept, before the newer
// steps.
func TestSurvivalNoteStaysAfterAPlanInsert(t *testing.T) {
	h := historyOf(5, "r")
	h.Append(userMsg("second task"))
	h.Append(toolStep("x", 1, "r")...)
	tr := newTrimmer(0, 0)
	if tr.survive(h) == 0 {
		t.Fatal("survival removed nothing")
	}
	h.Append(toolStep("y", 1, "r")...)
	g, m := h.upsertPinned(msgkind.Plan, planPrefix+" v1]")
	if g != 2 {
		t.Fatalf("plan inserted at group %d", g)
	}
	tr.inserted(g, m)
	want := []string{
		"You are odek.", survivePrefix + " 12 earlier message(s) were removed after the provider rejected",
		"the task", planPrefix + " v1]", "step g4", "r", "r", "second task", "step x", "r",
		survivalPrefix + " the conversation was cut to its most recent steps",
		"step y", "r",
	}
	for i := range want {
		want[i] = want[i][:min(len(want[i]), 40)] // as contents cuts them
	}
	v := tr.view(h)
	assertPaired(t, v)
	if diff := cmp.Diff(want, contents(v)); diff != "" {
		t.Errorf("view after the plan insert (-want +got):\n%s", diff)
	}
}

// After a survival, the results of the groups it removed are no longer sent:
// a proactive pass does not truncate them, and the trimmed marker does not
// count them.
func TestRemovedResultsAreNotTruncatedAgain(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := historyOf(8, big)
	tr := newTrimmer(5000, 0)
	if removed := tr.survive(h); removed != 6*3 {
		t.Fatalf("survival removed %d messages, want 18", removed)
	}
	before := contents(tr.view(h))
	if tr.estimate(h) <= tr.budget() {
		t.Fatalf("estimate %d within the budget %d: nothing to test", tr.estimate(h), tr.budget())
	}
	// What is left is protected, and its 4 results are the newest.
	if dropped, truncated := tr.proactive(h); dropped != nil || truncated != 0 {
		t.Errorf("dropped %v, truncated %d: want nothing, the rest is protected", dropped, truncated)
	}
	after := contents(tr.view(h))
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("view changed (-before +after):\n%s", diff)
	}
	for _, m := range tr.view(h) {
		if m.Kind == msgkind.ContextTrimmed {
			t.Errorf("trimmed marker %q for results the view does not hold", m.Content)
		}
	}
}

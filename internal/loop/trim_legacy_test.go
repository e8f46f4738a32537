package loop

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/msgkind"
)

// `odek continue` regroups whatever transcript a session holds, and a
// session saved by an older odek (no MAC) may hold any: a message between
// the system prompt and the task, a tool-call group first, a tool result
// without its call (Regroup drops that one, since a provider refuses it;
// the trimmer is still tested on a history that holds it as a group of its
// own, so it stays sound whatever it is given). These tests pin how
// trimming treats such histories.

// A message between the system prompt and the task is not part of the
// protected head: proactive trimming drops it, survival removes it.
func TestGreetingBeforeTheTaskIsNotProtected(t *testing.T) {
	big := strings.Repeat("b", 4000)
	legacy := func() *History {
		msgs := []llm.Message{sysMsg("You are odek."), {Role: llm.RoleAssistant, Content: "Hello! How can I help?"}, userMsg("the task")}
		for i := range 4 {
			msgs = append(msgs, toolStep(fmt.Sprint("g", i), 1, big)...)
		}
		return Regroup(append(msgs, userMsg("next task")))
	}

	h := legacy()
	tr := newTrimmer(1000, 0)
	if dropped, _ := tr.proactive(h); !slices.Equal(dropped, []int{1, 3, 4, 5}) {
		t.Errorf("proactive dropped %v, want the greeting and the older steps [1 3 4 5]", dropped)
	}

	h = legacy()
	tr = newTrimmer(0, 0)
	if removed := tr.survive(h); removed != 1+2*2 {
		t.Errorf("survival removed %d messages, want 5 (the greeting and two steps)", removed)
	}
	want := []string{"You are odek.", survivePrefix, "the task", "step g2", big, "step g3", big, "next task", survivalPrefix}
	v := tr.view(h)
	assertPaired(t, v)
	if diff := cmp.Diff(prefixes(want, v), want); diff != "" {
		t.Errorf("survival view (-got +want):\n%s", diff)
	}
}

// A transcript that opens with a tool-call group: survival keeps it while
// it is one of the last two tool-call groups.
func TestSurvivalKeepsAToolCallGroupFirst(t *testing.T) {
	msgs := append(toolStep("first", 1, "r"), userMsg("the task"),
		llm.Message{Role: llm.RoleAssistant, Content: "an answer"}, userMsg("next task"))
	h := Regroup(msgs)
	tr := newTrimmer(0, 0)
	if removed := tr.survive(h); removed != 1 {
		t.Errorf("survival removed %d messages, want 1 (the answer)", removed)
	}
	want := []string{survivePrefix, "step first", "r", "the task", "next task", survivalPrefix}
	v := tr.view(h)
	assertPaired(t, v)
	if diff := cmp.Diff(prefixes(want, v), want); diff != "" {
		t.Errorf("survival view (-got +want):\n%s", diff)
	}
}

// orphanHistory is a legacy transcript with a tool result of n bytes without
// its call right after the task, then five small tool steps.
func orphanHistory(n int) *History {
	msgs := []llm.Message{sysMsg("You are odek."), userMsg("the task"),
		{Role: llm.RoleTool, ToolCallID: "gone", Name: "t", Content: strings.Repeat("o", n)}}
	for i := range 5 {
		msgs = append(msgs, toolStep(fmt.Sprint("s", i), 1, "small")...)
	}
	h := &History{} // grouped as Regroup does, but the orphan kept
	for i := 0; i < len(msgs); {
		j, _ := llm.GroupEnd(msgs, i)
		h.Append(msgs[i:j]...)
		i = j
	}
	return h
}

// A tool result that is a group of its own and that survival removed is not
// truncated by a later proactive pass, nor counted in a marker.
func TestRemovedOrphanResultIsNotTruncated(t *testing.T) {
	h := orphanHistory(3000)
	if h.Groups() != 8 || h.Group(2)[0].Role != llm.RoleTool {
		t.Fatalf("the orphan result is not a group of its own: %d groups", h.Groups())
	}
	tr := newTrimmer(500, 0)
	if removed := tr.survive(h); removed != 1+3*2 {
		t.Fatalf("survival removed %d messages, want 7", removed)
	}
	if tr.estimate(h) <= tr.budget() {
		t.Fatalf("estimate %d within the budget %d: nothing to test", tr.estimate(h), tr.budget())
	}
	if dropped, truncated := tr.proactive(h); dropped != nil || truncated != 0 {
		t.Errorf("dropped %v, truncated %d: want nothing, the rest is protected", dropped, truncated)
	}
	for _, m := range tr.view(h) {
		if m.Kind == msgkind.ContextTrimmed {
			t.Errorf("trimmed marker %q for a result the view does not hold", m.Content)
		}
	}
}

// A plan inserted right before a truncated tool result (here one without its
// call, so it starts a group) moves the truncation with the result: the plan
// is sent whole, the result as its notice.
func TestPlanInsertedBeforeATruncatedResult(t *testing.T) {
	h := orphanHistory(3000)
	orphan := h.Messages()[2].Content
	tr := trimmerWithBudget(t, EstimateMessages(h.Messages())-truncationSaves(orphan)+markerReserve)
	if _, truncated := tr.proactive(h); truncated != 1 {
		t.Fatalf("truncated %d, want the orphan result", truncated)
	}
	plan := planPrefix + " v1]"
	g, m := h.upsertPinned(msgkind.Plan, plan)
	if g != 2 || m != 2 {
		t.Fatalf("plan inserted at group %d, message %d; want 2, 2 (before the result)", g, m)
	}
	tr.inserted(g, m)
	v := tr.view(h)
	want := []string{"You are odek.", trimmedPrefix, "the task", plan, trimNotice(3000), "step s0", "small"}
	if diff := cmp.Diff(prefixes(want, v[:min(len(v), len(want))]), want); diff != "" {
		t.Errorf("view (-got +want):\n%s", diff)
	}
}

// prefixes is v's contents, each cut to want's entry when it starts with it
// (a marker compares by its opening), else to 80 bytes.
func prefixes(want []string, v []llm.Message) []string {
	out := make([]string, len(v))
	for i, m := range v {
		if c := m.Content; i < len(want) && strings.HasPrefix(c, want[i]) {
			out[i] = want[i]
		} else {
			out[i] = c[:min(len(c), 80)]
		}
	}
	return out
}

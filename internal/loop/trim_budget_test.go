package loop

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/llm"
)

// These tests pin the budget arithmetic of proactive trimming at its
// boundaries (docs/SESSIONS.md, "Context trimming"): a history exactly at
// the budget, one token over, a truncation or a dropped group that just
// reaches the target, a result of exactly 2,000 bytes. The budget is tuned
// through the tool definitions' estimate, which it leaves out.

// trimWindow is the context window of these tests: 75% of it is 75,000.
const trimWindow = 100000

// trimmerWithBudget is a trimmer whose budget (before any provider count)
// is exactly budget tokens of messages.
func trimmerWithBudget(t *testing.T, budget int) *trimmer {
	t.Helper()
	tr := newTrimmer(trimWindow, int(trimFactor*trimWindow)-budget)
	if tr.budget() != budget {
		t.Fatalf("budget %d, want %d", tr.budget(), budget)
	}
	return tr
}

// trimNotice is the notice the spec fixes for a result of n bytes.
func trimNotice(n int) string {
	return fmt.Sprintf("[tool output trimmed: %d bytes dropped to fit context budget]", n)
}

// truncationSaves is what replacing a body by its notice takes off the
// estimate: a quarter token per byte, rounded up, of each.
func truncationSaves(body string) int {
	return (len(body)+3)/4 - (len(trimNotice(len(body)))+3)/4
}

// A history whose estimate is exactly the budget is sent whole; one token
// more and it is trimmed.
func TestHistoryAtTheBudgetIsSentWhole(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := historyOf(6, big)
	est := EstimateMessages(h.Messages())

	tr := trimmerWithBudget(t, est)
	if d, n := tr.proactive(h); d != nil || n != 0 {
		t.Fatalf("a history of exactly the budget (%d) was trimmed: dropped %v, truncated %d", est, d, n)
	}
	if v := tr.view(h); !slices.EqualFunc(v, h.Messages(), func(a, b llm.Message) bool { return a.Content == b.Content }) {
		t.Errorf("the view differs from the history: %q", contents(v))
	}

	tr = trimmerWithBudget(t, est-1)
	if _, n := tr.proactive(h); n == 0 {
		t.Fatalf("a history one token over the budget (%d > %d) was not trimmed", est, est-1)
	}
}

// Truncation goes only as far as needed: when the second truncation brings
// the estimate exactly to the target (the budget less the markers' 120
// tokens) the third result stays whole.
func TestTruncationStopsExactlyAtTheTarget(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := historyOf(6, big) // 12 results, the 8 oldest may be truncated
	est := EstimateMessages(h.Messages())
	target := est - 2*truncationSaves(big)
	tr := trimmerWithBudget(t, target+markerReserve)
	dropped, truncated := tr.proactive(h)
	if truncated != 2 || dropped != nil {
		t.Fatalf("truncated %d, dropped %v; want the 2 oldest results truncated and nothing dropped", truncated, dropped)
	}
	var got []string
	for _, m := range tr.view(h) {
		if m.Role == llm.RoleTool {
			got = append(got, m.Content)
		}
	}
	want := []string{trimNotice(4000), trimNotice(4000)}
	for range 10 {
		want = append(want, big)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool results sent (-want +got):\n%s", diff)
	}
	if est := tr.estimate(h); est > tr.budget() {
		t.Errorf("estimate %d over the budget %d", est, tr.budget())
	}

	// One token less and a third result goes.
	tr = trimmerWithBudget(t, target+markerReserve-1)
	if _, truncated := tr.proactive(h); truncated != 3 {
		t.Errorf("one token below: truncated %d, want 3", truncated)
	}
}

// Groups are dropped only as far as needed: when dropping the oldest group
// brings the estimate exactly to the target, the next group is kept.
func TestDroppingStopsWhenTheRestJustFits(t *testing.T) {
	h := historyOf(6, "small") // nothing to truncate
	est := EstimateMessages(h.Messages())
	target := est - EstimateMessages(h.Group(2))
	tr := trimmerWithBudget(t, target+markerReserve)
	dropped, truncated := tr.proactive(h)
	if !slices.Equal(dropped, []int{2}) || truncated != 0 {
		t.Fatalf("dropped %v, truncated %d; want only group 2 dropped", dropped, truncated)
	}
	want := []string{"You are odek.", "[Context trimmed: 0 tool output(s) truncated, 1 prior message group(s) dropped to fit the model's context window.]", "the task"}
	v := tr.view(h)
	if diff := cmp.Diff(want, fullContents(v[:3])); diff != "" {
		t.Errorf("head of the view (-want +got):\n%s", diff)
	}
	if v[3].Content != "step g1" || len(v) != len(h.Messages())-3+1 {
		t.Errorf("view %q", contents(v))
	}
	if est := EstimateMessages(v); est > tr.budget() {
		t.Errorf("estimate %d over the budget %d", est, tr.budget())
	}

	tr = trimmerWithBudget(t, target+markerReserve-1)
	if dropped, _ := tr.proactive(h); !slices.Equal(dropped, []int{2, 3}) {
		t.Errorf("one token below: dropped %v, want [2 3]", dropped)
	}
}

// Only results over 2,000 bytes are truncated: one of exactly 2,000 stays
// whole, one of 2,001 becomes its notice.
func TestResultOfExactly2000BytesStaysWhole(t *testing.T) {
	at, over := strings.Repeat("a", truncateOver), strings.Repeat("o", truncateOver+1)
	h := NewHistory(sysMsg("You are odek."), userMsg("the task"))
	h.Append(toolStep("at", 1, at)...)
	h.Append(toolStep("over", 1, over)...)
	for i := range 4 {
		h.Append(toolStep(fmt.Sprint("new", i), 1, "small")...)
	}
	est := EstimateMessages(h.Messages())
	tr := trimmerWithBudget(t, est-truncationSaves(over)+markerReserve)
	dropped, truncated := tr.proactive(h)
	if truncated != 1 || dropped != nil {
		t.Fatalf("truncated %d, dropped %v; want the 2,001-byte result truncated only", truncated, dropped)
	}
	v := tr.view(h)
	if !hasContent(v, at) {
		t.Error("the result of exactly 2,000 bytes was truncated")
	}
	if !hasContent(v, trimNotice(truncateOver+1)) || hasContent(v, over) {
		t.Errorf("the result of 2,001 bytes was not replaced by its notice: %q", contents(v))
	}
}

// With compaction on, the digest's reserve is kept free: trimming goes on
// until the view leaves it, not just until it is under the budget.
func TestTrimLeavesTheDigestReserveFree(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := historyOf(6, big)
	est := EstimateMessages(h.Messages())
	tr := trimmerWithBudget(t, est-1)
	tr.reserve = digestReserve
	if _, truncated := tr.proactive(h); truncated == 0 {
		t.Fatal("nothing truncated")
	}
	if got, limit := EstimateMessages(tr.view(h)), tr.budget()-digestReserve; got > limit {
		t.Errorf("the view's estimate %d leaves less than the digest's %d tokens free (limit %d)", got, digestReserve, limit)
	}
}

// A dropped group counts with its truncated results as the view shows them,
// not as its message before it: when the truncated result follows a message
// that was not cut (the task, a small result) the drop still goes on as far
// as the estimate needs.
func TestDroppingCountsTruncatedResultsAsSent(t *testing.T) {
	big := strings.Repeat("b", 4000)
	h := NewHistory(sysMsg("You are odek."), userMsg("the task"))
	for i := range 4 {
		h.Append(toolStep(fmt.Sprint("big", i), 1, big)...)
		h.Append(toolStep(fmt.Sprint("small", i), 1, "small")...)
	}
	// The 4 oldest results (big0, small0, big1, small1) may be truncated;
	// both big ones are, then groups 2, 3 and 4 must go.
	sent := func(k int) int {
		n := 0
		for _, m := range h.Group(k) {
			if m.Content == big {
				m.Content = trimNotice(len(big))
			}
			n += messageTokens(&m)
		}
		return n
	}
	target := EstimateMessages(h.Messages()) - 2*truncationSaves(big) - sent(2) - sent(3) - sent(4)
	tr := trimmerWithBudget(t, target+markerReserve)
	dropped, truncated := tr.proactive(h)
	if truncated != 2 || !slices.Equal(dropped, []int{2, 3, 4}) {
		t.Fatalf("truncated %d, dropped %v; want 2 truncated and groups [2 3 4] dropped", truncated, dropped)
	}
	if est := EstimateMessages(tr.view(h)); est > tr.budget() {
		t.Errorf("estimate %d over the budget %d", est, tr.budget())
	}
}

// fullContents are the contents of msgs, whole.
func fullContents(msgs []llm.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}

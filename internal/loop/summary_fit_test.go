package loop

import (
	"fmt"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// With a context budget, the summary transcript shows the newest messages
// that fit and says how many older ones it left out: at every budget the
// shown and the left-out add up to the history, and a transcript that shows
// everything says nothing was left out.
func TestSummaryTranscriptLeftOutCount(t *testing.T) {
	hist := make([]llm.Message, 5)
	for i := range hist {
		hist[i] = llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("m%d %s", i, strings.Repeat("x", 40))}
	}
	all := false
	for budget := 1; budget <= 2000 && !all; budget++ {
		shown, left := transcriptCounts(t, summaryMessagesFor(hist, "", "", budget))
		if shown+left != len(hist) {
			t.Fatalf("budget %d: %d shown and %d said left out, want %d in all", budget, shown, left, len(hist))
		}
		all = shown == len(hist)
	}
	if !all {
		t.Fatal("no budget up to 2000 tokens showed the whole history")
	}
}

// A run with no history yet still gets the prompt, under any budget.
func TestSummaryTranscriptEmptyHistory(t *testing.T) {
	for _, budget := range []int{0, 1, 1000} {
		msgs := summaryMessagesFor(nil, "", "", budget)
		if shown, left := transcriptCounts(t, msgs); shown != 0 || left != 0 {
			t.Errorf("budget %d: %d shown, %d left out of an empty history", budget, shown, left)
		}
		if body := msgs[len(msgs)-1].Content; !strings.HasPrefix(body, summaryPrompt) {
			t.Errorf("budget %d: body %q", budget, body)
		}
	}
}

// transcriptCounts reads a summary request's transcript: how many entries
// it shows (each starts a line with "[role]", the cut one too) and how many
// its note says were left out (0 without a note; a note saying 0 fails).
func transcriptCounts(t *testing.T, msgs []llm.Message) (shown, left int) {
	t.Helper()
	_, transcript, ok := strings.Cut(msgs[len(msgs)-1].Content, "--- transcript ---\n")
	if !ok {
		t.Fatalf("no transcript in %q", msgs[len(msgs)-1].Content)
	}
	for _, line := range strings.Split(transcript, "\n") {
		switch {
		case strings.Contains(line, "left out to fit the context window"):
			if _, err := fmt.Sscanf(line, "[%d earlier", &left); err != nil || left <= 0 {
				t.Fatalf("note %q", line)
			}
		case strings.HasPrefix(line, "["):
			shown++
		}
	}
	return shown, left
}

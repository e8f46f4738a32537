package loop

import (
	"context"

	"github.com/odek-run/odek/internal/llm"
)

// TimeBudgetMarker opens the answer of a run its caller stopped at a soft
// deadline (a sub-agent finishing before its hard timeout).
const TimeBudgetMarker = "[Time budget reached — partial summary]"

// PartialSummary finishes a run its caller stopped early, as the iteration
// cap does: one tool-less side call over res.History writes the best answer
// the work so far allows. The call's usage is added to res and counted
// against o.Budget; the answer, which starts with marker, becomes the last
// assistant message of res.History and res.Answer, and res is marked
// Partial with Stop StopEarly. The side call is a summary like the
// iteration cap's: fitted to o.ContextWindow, and an empty reply is an error.
// When the call fails res keeps what it had, plus the side call's usage. As
// at the iteration cap, o.Answers sees the summary last: its error is
// returned with the summary recorded.
func PartialSummary(ctx context.Context, o Options, res *Result, marker string) (string, error) {
	r := newRunner(o)
	r.hist = Regroup(res.History)
	r.res = *res
	text, err := r.summarize(ctx)
	res.Usage = r.res.Usage
	if err != nil {
		return "", err
	}
	answer := marker + "\n\n" + text
	res.History = append(res.History, llm.Message{Role: llm.RoleAssistant, Content: answer})
	res.Answer, res.Stop, res.Partial = answer, StopEarly, true
	if o.Answers != nil {
		return answer, o.Answers.Last(text)
	}
	return answer, nil
}

package loop

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/llm"
)

// Markers that open a partial answer (README, "Budgets").
const (
	IterationCapMarker = "[Iteration budget reached — partial summary]"
	BudgetStopMarker   = "[Execution budget reached — partial summary]"
)

const (
	summaryMessages = 30   // the side call sees at most this many recent messages
	summarySnippet  = 2000 // bytes kept of each
)

const summaryPrompt = "You have run out of steps for this task and cannot call tools any more. " +
	"Using only the work shown below, write the best final answer you can: what was done, " +
	"what was found, and what remains unfinished."

// noToolsNote is added to the summary prompt when the model answered it with
// tool calls and no text: the summary is asked for once more.
const noToolsNote = "Tools cannot be called here. Reply with the answer itself, as plain text."

// contractSummaryNote ends the summary prompt while Options.Answers holds
// answers to a contract the system message states.
const contractSummaryNote = "Write this answer in exactly the form the system message requires of a final answer."

// iterationCapSummary ends a run that hit MaxIterations: one tool-less side
// call turns the recent history into a partial answer. A summary that is no
// answer (empty, filtered, tools only) is MaxIterationsError.
func (r *runner) iterationCapSummary(ctx context.Context) (string, error) {
	text, err := r.summarize(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", cause(ctx)
		}
		if budget.IsBudget(err) {
			return "", err
		}
		return "", &MaxIterationsError{Iterations: r.o.MaxIterations, Err: err}
	}
	r.res.Stop, r.res.Partial = StopMaxIterations, true
	answer := IterationCapMarker + "\n\n" + text
	r.hist.Append(llm.Message{Role: llm.RoleAssistant, Content: answer})
	r.afterBatch()
	if r.o.Answers != nil {
		return answer, r.o.Answers.Last(text)
	}
	return answer, nil
}

// budgetStopWithSummary handles a tool-call budget stop: the other budgets may
// still have headroom, so a summary side call records what was achieved as an
// assistant message before the budget error is returned.
func (r *runner) budgetStopWithSummary(ctx context.Context, budgetErr error) (string, error) {
	var answer string
	if text, err := r.summarize(ctx); err == nil {
		answer = BudgetStopMarker + "\n\n" + text
		r.hist.Append(llm.Message{Role: llm.RoleAssistant, Content: answer})
	}
	r.afterBatch()
	return answer, budgetErr
}

// cutSummaryWarning follows a summary the provider cut at its output-token
// limit: it is still the partial answer.
const cutSummaryWarning = `the partial summary is cut off: the model stopped at its output-token limit (finish_reason "length")`

// summarize makes the tool-less side call, under the answer contract of a
// think call: its request is the trimmed history fitted to the context window
// (survival mode on a length rejection, as send does), its usage counts
// against the budgets, a content-filter stop is an error, and a reply with
// nothing in it is asked again once. A reply cut at the output-token limit
// is still the summary, with a warning, unless the limit was the output
// budget's clamp (a budget stop) or it has no text. A reply that still calls
// tools gives its text as the summary (the calls are dropped: nothing may run
// any more); one with tool calls and no text is asked again once, saying
// tools are not there.
func (r *runner) summarize(ctx context.Context) (string, error) {
	maxTokens, clamped := r.maxTokens()
	req := llm.Request{Model: r.o.ModelName, MaxTokens: maxTokens, ResponseFormat: r.o.ResponseFormat}
	i := r.res.Iterations
	note := ""
	if r.o.Answers != nil {
		note = contractSummaryNote
	}
	for again := true; ; again = false {
		resp, err := r.sendView(ctx, i, req, func() []llm.Message { return r.summaryRequest(note) })
		if err != nil {
			return "", err
		}
		if err := r.account(resp); err != nil {
			return "", err
		}
		if err := refusal(i, resp); err != nil {
			return "", err
		}
		text := resp.Message.Content
		blank := strings.TrimSpace(text) == ""
		cut := resp.FinishReason == finishLength
		switch {
		case cut && clamped:
			return "", r.outputBudgetStop()
		case cut && blank:
			return "", &AnswerError{Iteration: i, Err: ErrEmptyAnswer,
				Detail: `the output-token limit was reached (finish_reason "length") before any summary text`}
		case !blank:
			if cut {
				r.warn(cutSummaryWarning)
			}
			return text, nil
		case !again && len(resp.Message.ToolCalls) > 0:
			return "", errToolCallsInSummary
		case !again:
			return "", &AnswerError{Iteration: i, Err: ErrEmptyAnswer, Detail: "the summary had no text, twice in a row"}
		}
		if len(resp.Message.ToolCalls) > 0 {
			note = strings.TrimPrefix(note+"\n\n"+noToolsNote, "\n\n")
		} else {
			r.progress(Progress{Kind: ProgressEmptyReply, Iteration: i})
		}
	}
}

// summaryRequest is the side call's messages: the trimmed view of the history
// (what the next think call would see), as a transcript that fits the
// context window.
func (r *runner) summaryRequest(note string) []llm.Message {
	budget := 0
	if r.trim.window > 0 {
		budget = max(int(r.trim.factor*float64(r.trim.window)), 1) // no tool definitions are sent
	}
	msgs := summaryMessagesFor(r.trim.view(r.hist), r.o.System, note, budget)
	r.sentEstimate, r.sentText = EstimateMessages(msgs), textEstimate(msgs)
	return msgs
}

// summaryMessagesFor builds the side call's input: the system prompt, then the
// recent transcript as one user message of bounded snippets, ending with
// note. With a budget (tokens; 0 = none), the oldest entries are left out
// until the estimate fits, and the newest is cut if it alone does not. A
// transcript in a single message cannot contain dangling tool calls.
func summaryMessagesFor(hist []llm.Message, system, note string, budget int) []llm.Message {
	recent := hist
	if len(recent) > summaryMessages {
		recent = recent[len(recent)-summaryMessages:]
	}
	entries := make([]string, len(recent))
	for k, m := range recent {
		var b strings.Builder
		b.WriteString("[" + m.Role + "] ")
		b.WriteString(snippet(m.Content))
		for _, c := range m.ToolCalls {
			b.WriteString("\n  called " + c.Function.Name + " " + snippet(c.Function.Arguments))
		}
		b.WriteString("\n")
		entries[k] = b.String()
	}
	var msgs []llm.Message
	if system != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	head, tail := summaryPrompt+"\n\n--- transcript ---\n", ""
	if note != "" {
		tail = "\n" + note
	}
	if budget > 0 {
		fixed := EstimateMessages(append(msgs, llm.Message{Content: head + tail + leftOutNote(len(entries))}))
		entries = fitEntries(entries, 4*(budget-fixed))
		if left := len(recent) - len(entries); left > 0 {
			head += leftOutNote(left)
		}
	}
	return append(msgs, llm.Message{Role: llm.RoleUser, Content: head + strings.Join(entries, "") + tail})
}

// leftOutNote opens a transcript whose n oldest entries did not fit.
func leftOutNote(n int) string {
	return fmt.Sprintf("[%d earlier message(s) left out to fit the context window]\n", n)
}

// fitEntries keeps the newest entries that fit in room bytes; when not even
// the newest fits, its start is kept, cut on a rune boundary.
func fitEntries(entries []string, room int) []string {
	k := len(entries)
	for k > 0 && len(entries[k-1]) <= room {
		room -= len(entries[k-1])
		k--
	}
	if k == len(entries) && k > 0 && room > 0 {
		e := entries[k-1]
		cut := room
		for cut > 0 && !utf8.RuneStart(e[cut]) {
			cut--
		}
		return []string{e[:cut] + " …\n"}
	}
	return entries[k:]
}

// snippet cuts s to summarySnippet bytes on a rune boundary.
func snippet(s string) string {
	if len(s) <= summarySnippet {
		return s
	}
	cut := summarySnippet
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …"
}

package loop

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/llm"
)

// Markers that open a partial answer (BEHAVIOR §3.3, §5).
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
// call turns the recent history into a partial answer.
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
	r.res.Partial = true
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

// summarize makes the tool-less side call. Its usage counts against the
// budget like any other call. A reply that still calls tools gives its text
// as the summary (the calls are dropped: nothing may run any more); one with
// tool calls and no text is asked again once, saying tools are not there.
func (r *runner) summarize(ctx context.Context) (string, error) {
	maxTokens, _ := r.maxTokens()
	msgs := summaryMessagesFor(r.hist.Messages(), r.o.System)
	if r.o.Answers != nil {
		msgs[len(msgs)-1].Content += "\n" + contractSummaryNote
	}
	req := llm.Request{Model: r.o.ModelName, Messages: msgs, MaxTokens: maxTokens, ResponseFormat: r.o.ResponseFormat}
	for again := true; ; again = false {
		resp, err := r.o.Model.Complete(ctx, req)
		if err != nil {
			return "", err
		}
		if err := r.account(resp); err != nil {
			return "", err
		}
		text := resp.Message.Content
		if len(resp.Message.ToolCalls) == 0 || strings.TrimSpace(text) != "" {
			return text, nil
		}
		if !again {
			return "", errToolCallsInSummary
		}
		msgs[len(msgs)-1].Content += "\n\n" + noToolsNote
	}
}

// summaryMessagesFor builds the side call's input: the system prompt, then the
// recent transcript as one user message of bounded snippets. A transcript in a
// single message cannot contain dangling tool calls.
func summaryMessagesFor(hist []llm.Message, system string) []llm.Message {
	recent := hist
	if len(recent) > summaryMessages {
		recent = recent[len(recent)-summaryMessages:]
	}
	var b strings.Builder
	b.WriteString(summaryPrompt + "\n\n--- transcript ---\n")
	for _, m := range recent {
		b.WriteString("[" + m.Role + "] ")
		b.WriteString(snippet(m.Content))
		for _, c := range m.ToolCalls {
			b.WriteString("\n  called " + c.Function.Name + " " + snippet(c.Function.Arguments))
		}
		b.WriteString("\n")
	}
	var msgs []llm.Message
	if system != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	return append(msgs, llm.Message{Role: llm.RoleUser, Content: b.String()})
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

package loop

import "github.com/odek-run/odek/internal/llm"

// The token estimate of docs/SESSIONS.md ("Context trimming"): a quarter token per byte of every
// string, rounded up, plus fixed overheads. It is deliberately generous; the
// provider's own count, when it reports one, corrects the trimming threshold.
// When a provider reports no usage, the budgets count the same estimate of
// the request sent and the reply received (usage.go, docs/LLM.md).
const (
	perMessageTokens  = 50
	perToolCallTokens = 30
	perToolSpecTokens = 30
)

func tokens(s string) int { return (len(s) + 3) / 4 }

// messageTokens estimates one message.
func messageTokens(m *llm.Message) int {
	n := perMessageTokens + tokens(m.Content) + tokens(m.ReasoningContent) + tokens(m.Name) + tokens(m.ToolCallID)
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		n += perToolCallTokens + tokens(c.ID) + tokens(c.Function.Name) + tokens(c.Function.Arguments)
	}
	return n
}

// EstimateMessages estimates a request's messages.
func EstimateMessages(msgs []llm.Message) int {
	n := 0
	for i := range msgs {
		n += messageTokens(&msgs[i])
	}
	return n
}

// EstimateTools estimates the tool definitions offered with every request.
func EstimateTools(specs []llm.ToolSpec) int {
	n := 0
	for _, s := range specs {
		n += perToolSpecTokens + tokens(s.Name) + tokens(s.Description) + tokens(string(s.Parameters))
	}
	return n
}

// replyTokens estimates the output tokens of a reply: its text, reasoning
// and tool calls, without the per-message overhead (nothing was sent).
func replyTokens(m *llm.Message) int {
	n := tokens(m.Content) + tokens(m.ReasoningContent)
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		n += tokens(c.Function.Name) + tokens(c.Function.Arguments)
	}
	return n
}

package fakellm

import (
	"fmt"
	"strings"
)

// sequenceError checks a request's messages the way OpenAI's endpoint does
// and returns its complaint, or "" when the sequence is valid: each tool
// message answers a call of the assistant message its run of tool messages
// follows, and each call of an assistant message is answered before the
// next message of another role. A runner that sends an orphan result or a
// dangling call gets the 400 a real provider gives, in every test.
func sequenceError(msgs []RecordedMessage) (msg, param string) {
	var open []string // unanswered call ids of the assistant message being answered
	for i, m := range msgs {
		if m.Role == "tool" {
			k := indexOf(open, m.ToolCallID)
			if k < 0 {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
					fmt.Sprintf("messages.[%d].role", i)
			}
			open = append(open[:k], open[k+1:]...)
			continue
		}
		if len(open) > 0 {
			return unanswered(open), fmt.Sprintf("messages.[%d].role", i)
		}
		if m.Role == "assistant" {
			for _, c := range m.ToolCalls {
				open = append(open, c.ID)
			}
		}
	}
	if len(open) > 0 {
		return unanswered(open), fmt.Sprintf("messages.[%d].role", len(msgs))
	}
	return "", ""
}

// unanswered is OpenAI's complaint about calls left without a result.
func unanswered(ids []string) string {
	return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
		"The following tool_call_ids did not have response messages: " + strings.Join(ids, ", ")
}

func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/llm"
)

// replay sends a loaded session's conversation as updates (session/load):
// the user's prompts, the model's reasoning and text, each tool call,
// completed, with its result. odek's own messages (system prompt, plan,
// trim markers) are not part of the conversation a client shows.
func replay(box *outbox, sid sdk.SessionId, cwd string, msgs []llm.Message) {
	for _, m := range msgs {
		if m.Kind != "" {
			continue
		}
		switch m.Role {
		case llm.RoleUser:
			box.put(sid, sdk.UpdateUserMessageText(m.Content))
		case llm.RoleAssistant:
			if m.ReasoningContent != "" {
				box.put(sid, sdk.UpdateAgentThoughtText(m.ReasoningContent))
			}
			if m.Content != "" {
				box.put(sid, sdk.UpdateAgentMessageText(m.Content))
			}
			for _, c := range m.ToolCalls {
				box.put(sid, startCall(cwd, c, sdk.ToolCallStatusCompleted))
			}
		case llm.RoleTool:
			text := unframe(m.Content)
			opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateContent(textContent(text))}
			if strings.HasPrefix(text, "error: ") {
				opts = append(opts, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed))
			}
			box.put(sid, sdk.UpdateToolCall(sdk.ToolCallId(m.ToolCallID), opts...))
		}
	}
}

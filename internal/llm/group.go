package llm

// GroupEnd is the one grouping rule for a transcript (the loop's history
// and sessions both use it): the group that starts at msgs[i] ends before
// the returned index. An assistant message with tool calls and the tool
// messages that follow it form one group; any other message is a group by
// itself. complete is false when the group holds fewer tool messages than
// its assistant message made calls (a dangling call a provider rejects).
func GroupEnd(msgs []Message, i int) (end int, complete bool) {
	if i >= len(msgs) {
		return i, true
	}
	m := &msgs[i]
	if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
		return i + 1, true
	}
	j := i + 1
	for j < len(msgs) && msgs[j].Role == RoleTool {
		j++
	}
	return j, j-i-1 >= len(m.ToolCalls)
}

package loop

import "github.com/odek-run/odek/internal/llm"

// History is the conversation kept as whole message groups: a standalone
// message, or an assistant message with tool calls plus its tool messages.
// Trimming removes groups, never parts of one, so no tool call is ever left
// without its result. Messages are kept flat so a request can use them as is.
type History struct {
	msgs   []llm.Message
	starts []int // index of the first message of each group
}

// NewHistory starts a history from messages, one group each (a transcript
// restored from a session is regrouped with Regroup).
func NewHistory(msgs ...llm.Message) *History {
	h := &History{}
	for _, m := range msgs {
		h.Append(m)
	}
	return h
}

// Append adds messages as one group.
func (h *History) Append(msgs ...llm.Message) {
	if len(msgs) == 0 {
		return
	}
	h.starts = append(h.starts, len(h.msgs))
	h.msgs = append(h.msgs, msgs...)
}

// Messages returns the flat message list; callers must not modify it.
func (h *History) Messages() []llm.Message { return h.msgs }

// Len is the number of messages.
func (h *History) Len() int { return len(h.msgs) }

// Groups is the number of groups.
func (h *History) Groups() int { return len(h.starts) }

// Group returns the messages of group i.
func (h *History) Group(i int) []llm.Message {
	end := len(h.msgs)
	if i+1 < len(h.starts) {
		end = h.starts[i+1]
	}
	return h.msgs[h.starts[i]:end]
}

// Snapshot returns a copy safe to hand to another goroutine (the save hook).
func (h *History) Snapshot() []llm.Message {
	out := make([]llm.Message, len(h.msgs))
	copy(out, h.msgs)
	return out
}

// Regroup rebuilds a history from a flat transcript, grouped by
// llm.GroupEnd (an assistant message with tool calls and the tool messages
// answering it form one group). A provider rejects a request with a
// dangling tool call or with a tool result that follows no call, so
// trailing assistant tool calls without all their answers are dropped, and
// so is a tool message that starts a group (a session saved by an older
// odek may hold one).
func Regroup(msgs []llm.Message) *History {
	h := &History{}
	for i := 0; i < len(msgs); {
		j, complete := llm.GroupEnd(msgs, i)
		if !complete {
			break // dangling tool calls: drop this group and everything after it
		}
		if msgs[i].Role == llm.RoleTool {
			i = j // an orphaned result
			continue
		}
		h.Append(msgs[i:j]...)
		i = j
	}
	return h
}

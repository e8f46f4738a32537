package loop

import (
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/msgkind"
)

// upsertPinned sets the system message of kind k (the plan):
// in place when the history has one, else as a new group right after the
// protected head (the leading system messages, the first user message and a
// digest). It returns the group and message index of an inserted message,
// or -1, -1 when it replaced one or nothing changed.
func (h *History) upsertPinned(k msgkind.Kind, content string) (int, int) {
	for i := range h.msgs {
		if m := &h.msgs[i]; m.Kind == k {
			m.Content = content
			return -1, -1
		}
	}
	g := 0
	for g < h.Groups() && h.msgs[h.starts[g]].Role == llm.RoleSystem {
		g++
	}
	if g < h.Groups() && h.msgs[h.starts[g]].Role == llm.RoleUser {
		g++
	}
	for g < h.Groups() && isKind(h.Group(g), msgkind.Digest) {
		g++
	}
	h.insertGroup(g, marker(k, content))
	return g, h.starts[g]
}

// isKind reports a group that is one message of kind k.
func isKind(g []llm.Message, k msgkind.Kind) bool {
	return len(g) == 1 && g[0].Kind == k
}

// insertGroup inserts a one-message group before group g (g == Groups()
// appends).
func (h *History) insertGroup(g int, m llm.Message) {
	if g >= len(h.starts) {
		h.Append(m)
		return
	}
	at := h.starts[g]
	h.msgs = append(h.msgs, llm.Message{})
	copy(h.msgs[at+1:], h.msgs[at:])
	h.msgs[at] = m
	h.starts = append(h.starts, 0)
	copy(h.starts[g+1:], h.starts[g:])
	h.starts[g] = at
	for k := g + 1; k < len(h.starts); k++ {
		h.starts[k]++
	}
}

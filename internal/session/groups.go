package session

import (
	"encoding/json"
	"fmt"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/msgkind"
)

// The removal markers this package writes (msgkind owns their openings).
var (
	storageMarkerF = msgkind.StorageLimit.Opening() + " %d oldest message group(s) were removed to keep this session under %d MiB.]"
	trimmedMarkerF = msgkind.SessionTrimmed.Opening() + " %d older message(s) were removed by odek session trim.]"
)

// removalMarker is a marker of kind k reporting n, its count kept beside
// the text.
func removalMarker(k msgkind.Kind, n int, text string) llm.Message {
	return llm.Message{Role: llm.RoleSystem, Content: text, Kind: k, Count: n}
}

// group is one message group: msgs[start:end].
type group struct{ start, end int }

// groups splits msgs into groups by llm.GroupEnd, the rule the loop's
// history uses too.
func groups(msgs []llm.Message) []group {
	var out []group
	for i := 0; i < len(msgs); {
		j, _ := llm.GroupEnd(msgs, i)
		out = append(out, group{i, j})
		i = j
	}
	return out
}

// Trimmed reports whether msgs hold a marker of messages removed from the
// session (odek session trim, the storage cap): what they were can no longer
// be told, e.g. whether one was an untrusted tool result.
func Trimmed(msgs []llm.Message) bool {
	for _, m := range msgs {
		if m.Kind.Removal() {
			return true
		}
	}
	return false
}

// deriveKinds gives the system messages of a session saved before kinds were
// kept their kind and count (msgkind.Legacy). decode calls it once, after
// the MAC was checked over the file as written; the next save writes the
// kinds, signed.
func deriveKinds(msgs []llm.Message) {
	for i := range msgs {
		if m := &msgs[i]; m.Kind == "" {
			m.Kind, m.Count = msgkind.Legacy(m.Role, m.Content)
		}
	}
}

// leadingSystem is the number of system messages at the start of msgs.
func leadingSystem(msgs []llm.Message) int {
	n := 0
	for n < len(msgs) && msgs[n].Role == llm.RoleSystem {
		n++
	}
	return n
}

// headLen is the protected head: the leading system messages, the first
// user message, then the digest, plan and session-marker messages after it.
func headLen(msgs []llm.Message) int {
	h := leadingSystem(msgs)
	if h < len(msgs) && msgs[h].Role == llm.RoleUser {
		h++
	}
	for h < len(msgs) && (msgs[h].Kind.Pinned() || msgs[h].Kind.Removal()) {
		h++
	}
	return h
}

// messageSizes is each message's JSON size.
func messageSizes(msgs []llm.Message) ([]int, error) {
	sizes := make([]int, len(msgs))
	for i := range msgs {
		b, err := json.Marshal(&msgs[i])
		if err != nil {
			return nil, err
		}
		sizes[i] = len(b)
	}
	return sizes, nil
}

// arrayBytes is the size of a JSON array of items of these sizes.
func arrayBytes(sizes []int) int {
	n := 2 + max(len(sizes)-1, 0)
	for _, s := range sizes {
		n += s
	}
	return n
}

// capMessages drops the oldest message groups until the messages array fits
// in budget bytes. Groups made of one system message are kept; a storage
// marker is put after the leading system messages if it fits (an earlier
// marker's count is carried over). It returns the new messages and how many
// groups this call dropped.
func capMessages(msgs []llm.Message, budget int64, maxBytes int64) ([]llm.Message, int, error) {
	carried := 0
	var kept []llm.Message
	for _, m := range msgs {
		if m.Kind == msgkind.StorageLimit {
			carried += m.Count
			continue
		}
		kept = append(kept, m)
	}
	sizes, err := messageSizes(kept)
	if err != nil {
		return nil, 0, err
	}
	total := int64(arrayBytes(sizes))
	gs := groups(kept)
	drop := make([]bool, len(gs))
	dropped := 0
	marker := func() llm.Message {
		n := carried + dropped
		return removalMarker(msgkind.StorageLimit, n, fmt.Sprintf(storageMarkerF, n, maxBytes>>20))
	}
	markerSize := func() int64 { b, _ := json.Marshal(marker()); return int64(len(b)) + 1 }
	for k, g := range gs {
		if total+markerSize() <= budget {
			break
		}
		if g.end-g.start == 1 && kept[g.start].Role == llm.RoleSystem {
			continue
		}
		drop[k] = true
		dropped++
		for i := g.start; i < g.end; i++ {
			total -= int64(sizes[i]) + 1
		}
	}
	withMarker := total+markerSize() <= budget
	if !withMarker && total > budget {
		return nil, 0, fmt.Errorf("history does not fit in %d bytes even after dropping every message group", budget)
	}
	out := make([]llm.Message, 0, len(kept)+1)
	lead := leadingSystem(kept)
	out = append(out, kept[:lead]...)
	if withMarker {
		out = append(out, marker())
	}
	for k, g := range gs {
		if !drop[k] && g.start >= lead {
			out = append(out, kept[g.start:g.end]...)
		}
	}
	return out, dropped, nil
}

// Trim keeps the protected head (system messages, the first user message,
// the plan and digest) and the newest whole message groups that together
// hold at most keep messages; a marker after the head says how many older
// messages were removed. Turns is unchanged. It returns how many messages it
// removed (0: nothing to do).
func (s *Session) Trim(keep int) int {
	msgs := s.Messages
	h := headLen(msgs)
	removed := 0
	var head []llm.Message
	for _, m := range msgs[:h] {
		if m.Kind == msgkind.SessionTrimmed {
			removed += m.Count
			continue
		}
		head = append(head, m)
	}
	rest := msgs[h:]
	gs := groups(rest)
	first := len(gs) // first group kept
	n := 0
	for k := len(gs) - 1; k >= 0; k-- {
		g := gs[k]
		if n+g.end-g.start > keep || orphanTool(rest[g.start]) {
			break
		}
		n += g.end - g.start
		first = k
	}
	cut := len(rest)
	if first < len(gs) {
		cut = gs[first].start
	}
	if cut == 0 {
		return 0
	}
	removed += cut
	out := append(head, removalMarker(msgkind.SessionTrimmed, removed, fmt.Sprintf(trimmedMarkerF, removed)))
	out = append(out, rest[cut:]...)
	s.Messages = out
	s.raw = append([]llm.Message(nil), out...)
	s.RedactBoundary = len(out)
	return cut
}

// orphanTool is a tool message that does not follow its assistant message.
func orphanTool(m llm.Message) bool { return m.Role == llm.RoleTool }

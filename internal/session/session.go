package session

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/untrusted"
)

// Session is one persisted conversation, as stored in <id>.json.
type Session struct {
	// MAC is the hex HMAC-SHA256 of the rest of the file under the
	// per-install key (KeyFile); it must stay the first field (see sign).
	MAC string `json:"mac,omitempty"`
	ID  string `json:"id"`
	// Parent is the session this one was forked from ("" for none).
	Parent    string    `json:"parent,omitempty"`
	AuthToken string    `json:"auth_token"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Model     string    `json:"model"`
	Provider  string    `json:"provider,omitempty"` // the endpoint's base URL
	// Turns counts the user messages the conversation has had; it never
	// decreases, also not when old messages are trimmed away.
	Turns int    `json:"turns"`
	Task  string `json:"task"` // the first prompt, redacted
	// Dir is the working directory the session ran in (symlinks
	// resolved): continue without an id carries on this directory's.
	Dir      string        `json:"dir,omitempty"`
	Sandbox  bool          `json:"sandbox"`
	Messages []llm.Message `json:"messages"`
	// RedactBoundary is how many leading messages are known to be redacted.
	RedactBoundary int           `json:"redact_boundary,omitempty"`
	ExternalRefs   []ExternalRef `json:"external_refs,omitempty"`
	// Tainted is sticky: the conversation has held untrusted content (a run
	// on it was tainted, or it was loaded without a valid MAC), so a run
	// that continues it starts tainted.
	Tainted bool `json:"tainted,omitempty"`

	// raw[i] is the message as the caller gave it, before Messages[i] was
	// redacted from it; Update reuses Messages[i] while the caller's message
	// is unchanged.
	raw      []llm.Message
	capWarn  bool // the storage-cap warning was given
	diskSize int  // bytes of the last write or load
	stored   int  // messages in the last write or load (fewer than Messages when capped)
	// unverified: loaded without a MAC (a file from before sessions were
	// signed) or by a store without a key.
	unverified bool
}

// Unverified reports whether the session was loaded without a MAC to check
// (a file written before odek signed sessions): it is tainted, and the
// caller should say so.
func (s *Session) Unverified() bool { return s.unverified }

// Summary is one index entry: what `odek session list` shows.
type Summary struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Turns     int       `json:"turns"`
	Dir       string    `json:"dir,omitempty"`
	Parent    string    `json:"parent,omitempty"`
}

// titleRunes caps a session title.
const titleRunes = 60

// Summary returns the session's index entry.
func (s *Session) Summary() Summary {
	return Summary{ID: s.ID, Title: Title(s.Task), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Turns: s.Turns, Dir: s.Dir, Parent: s.Parent}
}

// Title is the first non-blank line of a task, on one line and short.
func Title(task string) string {
	for line := range strings.SplitSeq(task, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return untrusted.OneLine(line, titleRunes)
		}
	}
	return ""
}

// Update replaces the stored history with msgs (the caller's full history,
// unredacted). Messages the caller has not changed since the last save keep
// their redacted form; changed and new ones are redacted by the next Save.
// The caller may not modify msgs afterwards (a loop snapshot is fine).
func (s *Session) Update(msgs []llm.Message) {
	boundary := min(len(s.raw), len(msgs), s.RedactBoundary)
	for i := 0; i < boundary; i++ {
		if !sameMessage(msgs[i], s.raw[i]) {
			boundary = i
			break
		}
	}
	next := make([]llm.Message, len(msgs))
	copy(next, s.Messages[:boundary])
	copy(next[boundary:], msgs[boundary:])
	s.Messages = next
	s.raw = msgs
	s.RedactBoundary = boundary
	s.Turns = max(s.Turns, countUsers(msgs))
}

// Changed reports whether msgs differs from the history the session last
// took (by Update or from its file).
func (s *Session) Changed(msgs []llm.Message) bool {
	if len(msgs) != len(s.raw) {
		return true
	}
	for i := range msgs {
		if !sameMessage(msgs[i], s.raw[i]) {
			return true
		}
	}
	return false
}

// StoredCount is the number of messages the last save wrote (or the load
// read): fewer than len(Messages) when the storage cap dropped some.
func (s *Session) StoredCount() int { return s.stored }

// FileSize is the size in bytes of the last save or load.
func (s *Session) FileSize() int { return s.diskSize }

// sameMessage compares every field; strings shared with the stored copy
// compare in constant time.
func sameMessage(a, b llm.Message) bool {
	if a.Role != b.Role || a.Kind != b.Kind || a.Count != b.Count || a.Content != b.Content || a.ReasoningContent != b.ReasoningContent ||
		a.Name != b.Name || a.ToolCallID != b.ToolCallID || len(a.ToolCalls) != len(b.ToolCalls) ||
		len(a.ReasoningItems) != len(b.ReasoningItems) {
		return false
	}
	for i := range a.ReasoningItems {
		if string(a.ReasoningItems[i]) != string(b.ReasoningItems[i]) {
			return false
		}
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i] != b.ToolCalls[i] {
			return false
		}
	}
	return true
}

func countUsers(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleUser {
			n++
		}
	}
	return n
}

// redactFrom redacts messages [from:] in place (content, reasoning, tool
// names, call ids and arguments: the model chooses all of them), copying a
// tool-call slice before changing it since the caller's history shares it.
// A reasoning item (the Responses wire's, sent back byte for byte) is kept
// whole or not at all: one the redactor would change is dropped, since an
// item with a masked part is neither the provider's nor free of the secret
// (Ollama's holds the thinking as plain text), and leaving out reasoning is
// what an endpoint that refuses it gets too.
func redactFrom(msgs []llm.Message, from int, redact func(string) string) {
	for i := from; i < len(msgs); i++ {
		m := &msgs[i]
		m.ReasoningItems = cleanItems(m.ReasoningItems, redact)
		m.Content = redact(m.Content)
		m.ReasoningContent = redact(m.ReasoningContent)
		m.Name = redact(m.Name)
		m.ToolCallID = redact(m.ToolCallID)
		copied := false
		for k, c := range m.ToolCalls {
			r := c
			r.ID, r.Function.Name, r.Function.Arguments = redact(c.ID), redact(c.Function.Name), redact(c.Function.Arguments)
			if r != c {
				if !copied {
					m.ToolCalls, copied = append([]llm.ToolCall(nil), m.ToolCalls...), true
				}
				m.ToolCalls[k] = r
			}
		}
	}
}

// cleanItems is items without those the redactor would change; items itself
// when none would (the caller's history shares the slice).
func cleanItems(items []json.RawMessage, redact func(string) string) []json.RawMessage {
	for k, it := range items {
		if redact(string(it)) == string(it) {
			continue
		}
		kept := append([]json.RawMessage(nil), items[:k]...)
		for _, rest := range items[k+1:] {
			if redact(string(rest)) == string(rest) {
				kept = append(kept, rest)
			}
		}
		return kept
	}
	return items
}

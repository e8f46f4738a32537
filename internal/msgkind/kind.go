// Package msgkind names the messages odek writes into a conversation
// itself (the plan, the compaction digest, the trim and storage markers)
// and owns how each of them opens.
//
// A message's kind is kept beside its text (llm.Message.Kind), so code
// tells a marker by its kind and never by reading its text back. The
// opening is text for the model to read, and the way sessions saved before
// kinds existed are understood: Legacy derives a kind from it, once, when
// such a session is loaded (internal/session). No other package spells an
// opening; a test checks that.
package msgkind

import (
	"strconv"
	"strings"
)

// Kind is what odek wrote a message as; "" is an ordinary conversation
// message (the system prompt, a task, a model reply, a tool result).
type Kind string

// The kinds. Plan and Digest are pinned (kept through every trim); the
// others mark messages that were removed.
const (
	Plan           Kind = "plan"            // the plan's state (internal/plan renders it)
	Digest         Kind = "digest"          // a compaction summary of dropped groups (internal/loop)
	ContextTrimmed Kind = "context_trimmed" // tool output truncated, groups dropped for the window (internal/loop, request view only)
	ContextSurvive Kind = "context_survive" // messages removed after a context-length rejection (internal/loop, request view only)
	SurvivalMode   Kind = "survival_mode"   // the conversation was cut to its last steps (internal/loop, request view only)
	SessionTrimmed Kind = "session_trimmed" // messages removed by odek session trim (internal/session)
	StorageLimit   Kind = "storage_limit"   // groups removed to keep a session under its cap (internal/session)
)

// openings is the one spelling of each marker's opening.
var openings = map[Kind]string{
	Plan:           "[Current plan:",
	Digest:         "[Compacted earlier context:",
	ContextTrimmed: "[Context trimmed:",
	ContextSurvive: "[Context trimmed to survive:",
	SurvivalMode:   "[Context survival mode:",
	SessionTrimmed: "[Session trimmed:",
	StorageLimit:   "[Session storage limit:",
}

// Kinds lists every kind, in a fixed order.
func Kinds() []Kind {
	return []Kind{Plan, Digest, ContextTrimmed, ContextSurvive, SurvivalMode, SessionTrimmed, StorageLimit}
}

// Opening is the text a message of kind k starts with; "" for an unknown
// kind.
func (k Kind) Opening() string { return openings[k] }

// Pinned reports a kind trimming keeps: the plan and the digest.
func (k Kind) Pinned() bool { return k == Plan || k == Digest }

// Removal reports a kind that marks messages removed from a session, whose
// content can no longer be told (odek session trim, the storage cap).
func (k Kind) Removal() bool { return k == SessionTrimmed || k == StorageLimit }

// counted are the kinds whose text reports a count right after the
// opening ("[Session trimmed: 12 older message(s) …").
func (k Kind) counted() bool { return k.Removal() }

// Legacy derives the kind and count of a message saved before kinds were
// kept: a role-system message whose content starts with a known opening is
// of that kind; a removal marker's count is the number after its opening
// (0 when there is none). Anything else is ("", 0). It is the only place
// odek reads a marker's text back, and only sessions call it, at load.
func Legacy(role, content string) (Kind, int) {
	if role != "system" {
		return "", 0
	}
	for _, k := range Kinds() {
		rest, ok := strings.CutPrefix(content, k.Opening())
		if !ok {
			continue
		}
		if !k.counted() {
			return k, 0
		}
		return k, leadingCount(rest)
	}
	return "", 0
}

// leadingCount is the non-negative number that opens s after one space,
// 0 when there is none or it does not fit an int.
func leadingCount(s string) int {
	s, _ = strings.CutPrefix(s, " ")
	end := 0
	for end < len(s) && end < 18 && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil {
		return 0
	}
	return n
}

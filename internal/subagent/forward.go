package subagent

import (
	"encoding/json"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// forwardedEvent decodes an event a child relayed and checks it is one of
// its own: the odek.event/v1 schema, a lowercase type, a 32-hex run id other
// than the parent's. A child's own events name the parent already; a
// grandchild's (relayed twice) name the child and keep it, so the tree can
// be rebuilt at any depth. Missing links are filled in. Nil when unusable.
func forwardedEvent(raw json.RawMessage, parentRunID, taskID string) *events.Event {
	if len(raw) == 0 || len(raw) > 1<<20 {
		return nil
	}
	var ev events.Event
	if json.Unmarshal(raw, &ev) != nil {
		return nil
	}
	if ev.Schema != events.Schema || !wire.IsRunID(ev.RunID) || ev.RunID == parentRunID || !isEventType(string(ev.Type)) || ev.Timestamp.IsZero() {
		return nil
	}
	if ev.ParentRunID == "" {
		ev.ParentRunID = parentRunID
	}
	if ev.TaskID == "" {
		ev.TaskID = taskID
	}
	return &ev
}

// isEventType reports ^[a-z][a-z0-9_]{0,63}$.
func isEventType(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

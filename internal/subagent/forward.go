package subagent

import (
	"bytes"
	"encoding/json"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// maxForwardedEvent bounds one relayed event's bytes.
const maxForwardedEvent = 1 << 20

// forwardedEvent decodes an event a child relayed and checks it is one of
// its own: the odek.event/v1 schema, a lowercase type, a 32-hex run id other
// than the parent's, a timestamp. It returns the event whole, every field
// the child wrote kept (numbers exactly, as json.Number), for the parent to
// wrap in a subagent_event (DECISION 28); a child that left out its links
// gets parent_run_id and task_id filled in. Nil when unusable.
func forwardedEvent(raw json.RawMessage, parentRunID, taskID string) map[string]any {
	if len(raw) == 0 || len(raw) > maxForwardedEvent {
		return nil
	}
	var ev events.Event
	if json.Unmarshal(raw, &ev) != nil {
		return nil
	}
	if ev.Schema != events.Schema || !wire.IsRunID(ev.RunID) || ev.RunID == parentRunID || !isEventType(string(ev.Type)) || ev.Timestamp.IsZero() {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var whole map[string]any
	if dec.Decode(&whole) != nil {
		return nil
	}
	if ev.ParentRunID == "" {
		whole["parent_run_id"] = parentRunID
	}
	if ev.TaskID == "" {
		whole["task_id"] = taskID
	}
	return whole
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

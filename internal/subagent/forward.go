package subagent

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// maxForwardedEvent bounds one relayed event's bytes.
const maxForwardedEvent = 1 << 20

// forwardedEvent decodes an event a child relayed and checks it is one of
// its own, by its exact keys (encoding/json would match "Schema" or
// "RUN_ID" too): the odek.event/v1 schema, a lowercase type, a 32-hex run
// id other than the parent's, a UTC timestamp, and well-formed optional
// envelope fields. It returns the event whole, every field the child wrote
// kept (numbers exactly, as json.Number), for the parent to wrap in a
// subagent_event (DECISION 28); a child that left out its links gets
// parent_run_id and task_id filled in. Nil when unusable.
func forwardedEvent(raw json.RawMessage, parentRunID, taskID string) map[string]any {
	if len(raw) == 0 || len(raw) > maxForwardedEvent {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var ev map[string]any
	if dec.Decode(&ev) != nil || ev == nil || !ownEvent(ev, parentRunID) {
		return nil
	}
	if _, ok := ev["parent_run_id"]; !ok {
		ev["parent_run_id"] = parentRunID
	}
	if _, ok := ev["task_id"]; !ok {
		ev["task_id"] = taskID
	}
	return ev
}

// ownEvent checks the envelope of a child's event (docs/EVENTS.md).
func ownEvent(ev map[string]any, parentRunID string) bool {
	str := func(key string) (string, bool) { s, ok := ev[key].(string); return s, ok }
	schema, _ := str("schema")
	typ, _ := str("type")
	run, _ := str("run_id")
	if schema != events.Schema || !isEventType(typ) || !wire.IsRunID(run) || run == parentRunID || !utcTime(ev["timestamp"]) {
		return false
	}
	if v, ok := ev["parent_run_id"]; ok {
		if s, _ := v.(string); !wire.IsRunID(s) {
			return false
		}
	}
	if v, ok := ev["task_id"]; ok {
		if s, _ := v.(string); !wire.IsTaskID(s) {
			return false
		}
	}
	for _, key := range []string{"session_id", "tool"} {
		if v, ok := ev[key]; ok {
			if s, _ := v.(string); s == "" {
				return false
			}
		}
	}
	if v, ok := ev["iteration"]; ok {
		if n, err := jsonInt(v); err != nil || n < 1 {
			return false
		}
	}
	if v, ok := ev["data"]; ok {
		if _, isObject := v.(map[string]any); !isObject {
			return false
		}
	}
	return true
}

// utcTime reports an RFC 3339 time in UTC ("…Z"), as every event carries.
func utcTime(v any) bool {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339Nano, s)
	return err == nil && !t.IsZero() && strings.HasSuffix(s, "Z")
}

// jsonInt is a decoded JSON number as an integer.
func jsonInt(v any) (int64, error) {
	n, _ := v.(json.Number)
	return n.Int64()
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

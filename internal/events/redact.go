package events

import (
	"encoding/json"
	"time"
)

// redactMap returns a redacted deep copy of m: every string, at any depth, goes
// through redact; numbers, bools and nil are kept. The caller's map is never
// modified, since the loop may still hold it.
func redactMap(m map[string]any, redact func(string) string) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = redactValue(v, redact)
	}
	return out
}

func redactValue(v any, redact func(string) string) any {
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Duration, json.Number:
		return x
	case string:
		return redact(x)
	case map[string]any:
		return redactMap(x, redact)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e, redact)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = redact(s)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, s := range x {
			out[k] = redact(s)
		}
		return out
	case json.RawMessage:
		return redactRaw(x, redact)
	case []byte: // JSON would base64 it past the redactor: emit as text instead
		return redact(string(x))
	default:
		return redactOther(x, redact)
	}
}

// redactRaw redacts raw JSON (opt-in args) as text; if the replacement broke
// the JSON it is emitted as a string instead, never unredacted.
func redactRaw(raw json.RawMessage, redact func(string) string) any {
	s := redact(string(raw))
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}

// redactOther handles types the switch does not know (structs, pointers,
// other slices) by a JSON round trip, so no string can slip past redaction.
func redactOther(v any, redact func(string) string) any {
	b, err := json.Marshal(v)
	if err != nil {
		return redact(err.Error())
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return redact(string(b))
	}
	return redactValue(generic, redact)
}

package cassette

import (
	"encoding/json"
	"sort"
	"strconv"
)

// scrub is how a decoded JSON value is masked on its way into a cassette,
// and on the live side of a replay's comparison, so both read alike: every
// string passes text (object keys included); a member whose key names a
// secret ("password", "token", "api_key") has its string value, or each
// string of its array value, masked by field whatever it holds, at any
// depth; a number that text would change (a registered literal) becomes
// text's mask. JSON held in a string (a tool call's arguments) is text:
// the redactor masks its secret-named members as it reads them, and its
// bytes stay as they were, so a replay reads them alike.
//
// A secret used as an object key is masked too, and two keys masked alike
// are told apart by a suffix: the run that replays such a value sees other
// keys than the recording did, and may depart from it. Better a loud
// departure than a secret on disk.
type scrub struct {
	text  func(string) string          // nil: strings as they are
	field func(key, val string) string // nil: no member is masked by its key
}

// protocolKeys are keys that look secret but hold what odek itself made and
// a replay must carry as it was: MCP's progress token pairs a server's
// progress notifications with odek's call.
var protocolKeys = map[string]bool{"progressToken": true}

// traceKeys are the W3C trace context a traced run puts into an MCP
// request's _meta (docs/TELEMETRY.md): its ids differ on every run, so a
// cassette holds maskedTrace instead, and a replay reads them alike.
var traceKeys = map[string]bool{"traceparent": true, "tracestate": true}

const maskedTrace = "[trace context]"

func (s scrub) str(x string) string {
	if s.text == nil {
		return x
	}
	return s.text(x)
}

// walk returns v with leaf applied to every string that no key masked, keys
// and numbers masked as the type's comment says. v's maps and slices are
// reused.
func (s scrub) walk(v any, leaf func(string) string) any {
	switch x := v.(type) {
	case string:
		return leaf(x)
	case json.Number:
		if t := s.str(x.String()); t != x.String() {
			return t
		}
	case []any:
		for i := range x {
			x[i] = s.walk(x[i], leaf)
		}
	case map[string]any:
		return s.object(x, leaf)
	}
	return v
}

// object masks an object's keys and members. Keys are taken in sorted
// order, so two keys that mask alike ("ghp_…" and "sk-…" both become
// "[REDACTED]") are told apart the same way on every run: the later one
// gets a "#2" suffix, and so on.
func (s scrub) object(m map[string]any, leaf func(string) string) map[string]any {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(m))
	for _, k := range keys {
		nk := s.str(k)
		for n := 2; ; n++ {
			if _, taken := out[nk]; !taken {
				break
			}
			nk = s.str(k) + "#" + strconv.Itoa(n)
		}
		v := s.byKey(k, m[k])
		if traceKeys[k] {
			if _, ok := v.(string); ok {
				v = maskedTrace
			}
		}
		out[nk] = s.walk(v, leaf)
	}
	return out
}

// byKey masks what a member named k holds when the name looks secret: a
// string, or each string of an array. Objects below are left to the walk
// (a JSON Schema's "api_key": {"type": "string"} keeps its type).
func (s scrub) byKey(k string, v any) any {
	if s.field == nil || protocolKeys[k] {
		return v
	}
	switch x := v.(type) {
	case string:
		return s.field(k, x)
	case []any:
		for i, e := range x {
			if str, ok := e.(string); ok {
				x[i] = s.field(k, str)
			}
		}
		return x
	}
	return v
}

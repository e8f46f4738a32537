package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// splitEvents cuts an SSE body into its events (the text between blank lines).
func splitEvents(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	for _, ev := range strings.Split(s, "\n\n") {
		if strings.TrimSpace(ev) != "" {
			out = append(out, ev)
		}
	}
	return out
}

// redactEvents masks a streamed body. A provider streams a text a few
// bytes a chunk, so a secret in it is never whole in one event: the
// pieces of each delta field (content, reasoning, a tool call's
// arguments, per choice and call) are joined and redacted as one text,
// and where that masks something, the first piece carries the masked
// text and the others are emptied. Everything else in an event is masked
// string by string; an event that is not one JSON data line, as text.
func (r *Recorder) redactEvents(events []string) []string {
	parsed := make([]any, len(events))
	texts := map[string][]piece{}
	var order []string
	for i, ev := range events {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || strings.Contains(data, "\n") || !json.Valid([]byte(data)) {
			continue
		}
		v, err := decode([]byte(data))
		if err != nil {
			continue
		}
		parsed[i] = v
		deltaPieces(v, func(key string, p piece) {
			if _, seen := texts[key]; !seen {
				order = append(order, key)
			}
			texts[key] = append(texts[key], p)
		})
	}
	for _, key := range order {
		r.redactWhole(texts[key])
	}
	out := make([]string, len(events))
	for i, ev := range events {
		if parsed[i] == nil {
			out[i] = r.text(ev)
			continue
		}
		b, err := encodeJSON(r.scrub.walk(parsed[i], r.text))
		if err != nil {
			out[i] = r.text(ev)
			continue
		}
		out[i] = "data: " + string(b)
	}
	return out
}

// piece is one fragment of a streamed text: the string at m[key].
type piece struct {
	m   map[string]any
	key string
}

func (p piece) get() string  { s, _ := p.m[p.key].(string); return s }
func (p piece) set(s string) { p.m[p.key] = s }

// redactWhole masks the text the pieces make together.
func (r *Recorder) redactWhole(ps []piece) {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.get())
	}
	whole := b.String()
	masked := r.text(whole)
	if masked == whole {
		return
	}
	for i, p := range ps {
		if i == 0 {
			p.set(masked)
		} else {
			p.set("")
		}
	}
}

// deltaPieces calls f for each string of a chunk's deltas, keyed by
// choice, field and (for a tool call's function fields) call index.
func deltaPieces(v any, f func(key string, p piece)) {
	obj, _ := v.(map[string]any)
	choices, _ := obj["choices"].([]any)
	for ci, c := range choices {
		choice, _ := c.(map[string]any)
		delta, _ := choice["delta"].(map[string]any)
		cid := indexOf(choice, ci)
		for k, e := range delta {
			if _, ok := e.(string); ok {
				f(cid+"/"+k, piece{delta, k})
			}
		}
		calls, _ := delta["tool_calls"].([]any)
		for ti, t := range calls {
			call, _ := t.(map[string]any)
			fn, _ := call["function"].(map[string]any)
			for k, e := range fn {
				if _, ok := e.(string); ok {
					f(cid+"/call "+indexOf(call, ti)+"/"+k, piece{fn, k})
				}
			}
		}
	}
}

// indexOf is an element's "index" field, or its position without one.
func indexOf(m map[string]any, pos int) string {
	if n, ok := m["index"].(json.Number); ok {
		return n.String()
	}
	return fmt.Sprint("#", pos)
}

func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

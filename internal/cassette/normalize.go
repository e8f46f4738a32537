package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// normalizer turns a recorded or a live message into the form playback
// compares: redacted, with each side's roots replaced by their names
// ("<workdir>"), untrusted-content nonces replaced by "<nonce>", and the
// fields that differ between two faithful runs dropped (see dropVolatile).
type normalizer struct {
	redact func(string) string
	roots  []root // longest path first, so /a/b wins over /a
	// toolContent: in lenient playback tools run for real, so the content
	// of a role "tool" message is not compared.
	toolContent bool
}

type root struct{ path, name string }

func newNormalizer(redact func(string) string, roots map[string]string, lenient bool) normalizer {
	n := normalizer{redact: redact, toolContent: lenient}
	for name, p := range roots {
		if len(p) > 1 {
			n.roots = append(n.roots, root{path: p, name: "<" + name + ">"})
		}
	}
	sort.Slice(n.roots, func(i, j int) bool {
		if len(n.roots[i].path) != len(n.roots[j].path) {
			return len(n.roots[i].path) > len(n.roots[j].path)
		}
		return n.roots[i].name < n.roots[j].name
	})
	return n
}

func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// llmRequest is the comparable form of a chat-completions request body.
func (n normalizer) llmRequest(raw []byte) (any, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, err
	}
	if obj, ok := v.(map[string]any); ok && n.toolContent {
		if msgs, ok := obj["messages"].([]any); ok {
			for _, m := range msgs {
				if mm, ok := m.(map[string]any); ok && mm["role"] == "tool" {
					mm["content"] = "<tool result: not compared in lenient replay>"
				}
			}
		}
	}
	return n.walk(v), nil
}

// mcpMessage is the comparable form of a JSON-RPC message odek sent.
func (n normalizer) mcpMessage(raw []byte) (any, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, err
	}
	if obj, ok := v.(map[string]any); ok {
		dropVolatile(obj)
	}
	return n.walk(v), nil
}

// dropVolatile removes what two faithful runs may differ in: the request
// id (renumbered by playback), the client's version, a progress token.
func dropVolatile(msg map[string]any) {
	delete(msg, "id")
	params, _ := msg["params"].(map[string]any)
	if params == nil {
		return
	}
	if ci, ok := params["clientInfo"].(map[string]any); ok {
		delete(ci, "version")
	}
	if meta, ok := params["_meta"].(map[string]any); ok {
		delete(meta, "progressToken")
		if len(meta) == 0 {
			delete(params, "_meta")
		}
	}
}

func (n normalizer) walk(v any) any {
	switch x := v.(type) {
	case string:
		return n.text(x)
	case []any:
		for i := range x {
			x[i] = n.walk(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = n.walk(e)
		}
	}
	return v
}

func (n normalizer) text(s string) string {
	if n.redact != nil {
		s = n.redact(s)
	}
	for _, r := range n.roots {
		s = strings.ReplaceAll(s, r.path, r.name)
	}
	return maskNonces(s)
}

const nonceMarker = "untrusted_content_"

// maskNonces replaces the per-run nonces odek puts in text the model sees:
// the 16 hex digits after each nonceMarker and those of a "[<16 hex>]" (the
// TOOL RESULT frame's).
func maskNonces(s string) string {
	if !strings.Contains(s, nonceMarker) && !strings.Contains(s, "[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], nonceMarker) && hexAt(s, i+len(nonceMarker)):
			b.WriteString(nonceMarker + "<nonce>")
			i += len(nonceMarker) + 16
		case s[i] == '[' && hexAt(s, i+1) && i+17 < len(s) && s[i+17] == ']':
			b.WriteString("[<nonce>]")
			i += 18
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// hexAt: s holds 16 lowercase hex digits from i.
func hexAt(s string, i int) bool { return i+16 <= len(s) && isHex(s[i:i+16]) }

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// diff is where two normalised values first differ: the field path
// ("messages[2].content", "" for the whole value) and each side, shortened.
type diff struct{ path, want, got string }

// firstDiff walks want and got in the same order (object keys sorted) and
// reports the first difference; ok is false when they are equal.
func firstDiff(path string, want, got any) (diff, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return leafDiff(path, want, got), true
		}
		for _, k := range unionKeys(w, g) {
			wv, win := w[k]
			gv, gin := g[k]
			p := joinPath(path, k)
			switch {
			case !win:
				return diff{path: p, want: "(absent)", got: show(gv)}, true
			case !gin:
				return diff{path: p, want: show(wv), got: "(absent)"}, true
			}
			if d, ok := firstDiff(p, wv, gv); ok {
				return d, true
			}
		}
		return diff{}, false
	case []any:
		g, ok := got.([]any)
		if !ok {
			return leafDiff(path, want, got), true
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if d, ok := firstDiff(path+"["+strconv.Itoa(i)+"]", w[i], g[i]); ok {
				return d, true
			}
		}
		if len(w) != len(g) {
			return diff{path: path, want: fmt.Sprintf("%d elements", len(w)), got: fmt.Sprintf("%d elements", len(g))}, true
		}
		return diff{}, false
	case string:
		if g, ok := got.(string); ok {
			if w == g {
				return diff{}, false
			}
			return stringDiff(path, w, g), true
		}
	}
	if show(want) == show(got) {
		return diff{}, false
	}
	return leafDiff(path, want, got), true
}

func leafDiff(path string, want, got any) diff {
	return diff{path: path, want: show(want), got: show(got)}
}

// stringDiff shows both strings around the first byte where they differ.
func stringDiff(path, w, g string) diff {
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	from := max(0, i-40)
	cut := func(s string) string {
		to := min(len(s), i+80)
		out := s[from:to]
		if from > 0 {
			out = "…" + out
		}
		if to < len(s) {
			out += "…"
		}
		return strconv.Quote(out)
	}
	return diff{path: path, want: cut(w), got: cut(g)}
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 160 {
		return string(b[:160]) + "…"
	}
	return string(b)
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

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
	scrub scrub
	roots []root // longest path first, so /a/b wins over /a
	// toolContent: in lenient playback tools run for real, so the content
	// of a role "tool" message is not compared.
	toolContent bool
}

type root struct{ path, name string }

// Each side masks both sides' roots (rootSets: its own, then the other's):
// a text that merely holds the other side's root path (a route "/app/x"
// in a file, recorded in a container whose workdir was /app) then reads
// the same on both.
func newNormalizer(s scrub, lenient bool, rootSets ...map[string]string) normalizer {
	n := normalizer{scrub: s, toolContent: lenient}
	for _, roots := range rootSets {
		for name, p := range roots {
			if len(p) > 1 {
				n.roots = append(n.roots, root{path: p, name: "<" + name + ">"})
			}
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

// llmRequest is the comparable form of a request body, on either wire.
func (n normalizer) llmRequest(raw []byte) (any, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, err
	}
	if obj, ok := v.(map[string]any); ok {
		// The prompt cache key is the run's (or the session's) id, and
		// prompt_caching may differ between the recording and the replay.
		delete(obj, "prompt_cache_key")
		delete(obj, "user")
	}
	if obj, ok := v.(map[string]any); ok && n.toolContent {
		if msgs, ok := obj["messages"].([]any); ok {
			for _, m := range msgs {
				if mm, ok := m.(map[string]any); ok && mm["role"] == "tool" {
					mm["content"] = "<tool result: not compared in lenient replay>"
				}
			}
		}
		if items, ok := obj["input"].([]any); ok { // the Responses wire's
			for _, it := range items {
				if im, ok := it.(map[string]any); ok && im["type"] == "function_call_output" {
					im["output"] = "<tool result: not compared in lenient replay>"
				}
			}
		}
	}
	return n.walk(v), nil
}

// value is the comparable form of any other JSON value (a tool's arguments):
// redacted, roots and ids masked, nothing dropped.
func (n normalizer) value(raw []byte) (any, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, err
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
// id (renumbered by playback), the client's version, a progress token,
// the trace context.
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
		for k := range traceKeys { // a traced run's and an untraced one's replay alike
			delete(meta, k)
		}
		if len(meta) == 0 {
			delete(params, "_meta")
		}
	}
}

// walk masks v as a recording would (scrub), then each string's roots and
// per-run values.
func (n normalizer) walk(v any) any { return n.scrub.walk(v, n.text) }

func (n normalizer) text(s string) string {
	s = n.scrub.str(s)
	for _, r := range n.roots {
		s = strings.ReplaceAll(s, r.path, r.name)
	}
	return maskPlatform(maskDates(maskDurations(maskIDs(s))))
}

// maskPlatform replaces the platform the system prompt names ("- OS:
// darwin/arm64") with "<platform>": a cassette recorded on a laptop must
// replay on a CI runner of another OS or architecture.
func maskPlatform(s string) string {
	return maskAfter(s, "- OS: ", "<platform>", func(rest string) int {
		goos := lowerAlnumRun(rest)
		if goos == 0 || goos >= len(rest) || rest[goos] != '/' {
			return 0
		}
		if arch := lowerAlnumRun(rest[goos+1:]); arch > 0 {
			return goos + 1 + arch
		}
		return 0
	})
}

// maskAfter replaces, after each lead in s, the token of the length match
// gives (0: none there) with repl.
func maskAfter(s, lead, repl string, match func(rest string) int) string {
	if !strings.Contains(s, lead) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, lead)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+len(lead)])
		s = s[i+len(lead):]
		if n := match(s); n > 0 {
			b.WriteString(repl)
			s = s[n:]
		}
	}
}

// lowerAlnumRun is the length of s's leading run of [a-z0-9].
func lowerAlnumRun(s string) int {
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || isDigit(s[n])) {
		n++
	}
	return n
}

// maskIDs replaces the per-run values odek puts in text the model sees —
// nonces of untrusted-content fences and TOOL RESULT frames, task ids (16
// lowercase hex digits), run ids (32) — with "<id16>" and "<id32>". A run
// of exactly that many hex digits between non-alphanumeric bytes counts,
// so digests (40, 64) and words are left alone; an MD5 (32) is masked too,
// in the comparison only.
func maskIDs(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isHexByte(s[i]) || i > 0 && isAlnum(s[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isHexByte(s[j]) {
			j++
		}
		if (j == len(s) || !isAlnum(s[j])) && (j-i == 16 || j-i == 32) {
			b.WriteString(s[last:i])
			b.WriteString(map[bool]string{true: "<id16>", false: "<id32>"}[j-i == 16])
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isHexByte(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

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

// maskDurations replaces the wall times odek reports to the model (a
// sub-agent's "status: success · 1.2s") with "<duration>": they differ
// between two faithful runs.
func maskDurations(s string) string {
	return maskAfter(s, "· ", "<duration>", func(rest string) int {
		j := 0
		for j < len(rest) && (isDigit(rest[j]) || rest[j] == '.') {
			j++
		}
		if j > 0 && j < len(rest) && rest[j] == 's' && (j+1 == len(rest) || !isAlnum(rest[j+1])) {
			return j + 1
		}
		return 0
	})
}

// maskDates replaces calendar dates (YYYY-MM-DD between non-digits) with
// "<date>": the system prompt names the day a run started, and a cassette
// recorded yesterday must replay today.
func maskDates(s string) string {
	if len(s) < 10 || !strings.Contains(s, "-") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i+10 <= len(s); i++ {
		if isDate(s[i:i+10]) && (i == 0 || !isDigit(s[i-1])) && (i+10 == len(s) || !isDigit(s[i+10])) {
			b.WriteString(s[last:i])
			b.WriteString("<date>")
			last = i + 10
			i += 9
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isDate(s string) bool {
	for i := 0; i < 10; i++ {
		if i == 4 || i == 7 {
			if s[i] != '-' {
				return false
			}
		} else if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

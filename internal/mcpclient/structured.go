package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/artifact"
)

// structuredLabel introduces structured content rendered beside a text result.
const structuredLabel = "structured content (JSON):\n"

// withStructured adds a tool's structuredContent to what the model reads,
// as compact JSON text: alone when the result has no other content, after
// it otherwise — unless the text already says it all (a text item holds the
// same JSON, as the spec asks servers to send for older clients, or every
// value of the structure appears in the text, as with the reference
// filesystem server's {"content": <the text>}), so the model never reads
// the same data twice. The renderer's max_result_chars cap and untrusted
// fence apply to it like to any text.
func withStructured(items []artifact.Content, structured json.RawMessage) []artifact.Content {
	sc := bytes.TrimSpace(structured)
	if len(sc) == 0 || string(sc) == "null" {
		return items
	}
	var buf bytes.Buffer
	if json.Compact(&buf, sc) != nil {
		return items
	}
	if len(items) == 0 || onlyEmptyText(items) {
		return []artifact.Content{{Type: "text", Text: buf.String()}}
	}
	var texts []string
	for _, it := range items {
		if it.Type == "text" && sameJSON(it.Text, buf.Bytes()) {
			return items
		}
		if it.Type == "text" {
			texts = append(texts, it.Text)
		}
	}
	if leavesIn(buf.Bytes(), strings.Join(texts, "\n")) {
		return items
	}
	return append(append([]artifact.Content(nil), items...), artifact.Content{Type: "text", Text: structuredLabel + buf.String()})
}

func onlyEmptyText(items []artifact.Content) bool {
	for _, it := range items {
		if it.Type != "text" || len(bytes.TrimSpace([]byte(it.Text))) > 0 {
			return false
		}
	}
	return true
}

// maxLeaves bounds the work of leavesIn; a larger structure is always shown.
const maxLeaves = 1000

// leavesIn reports whether every scalar of the JSON value compact appears
// verbatim in text (strings as their decoded text, numbers as written,
// booleans as true/false); null and empty containers add nothing.
func leavesIn(compact []byte, text string) bool {
	if text == "" {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(compact))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	n := 0
	var walk func(any) bool
	walk = func(v any) bool {
		if n++; n > maxLeaves {
			return false
		}
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				if !walk(e) {
					return false
				}
			}
		case []any:
			for _, e := range x {
				if !walk(e) {
					return false
				}
			}
		case string:
			return strings.Contains(text, x)
		case json.Number:
			return strings.Contains(text, x.String())
		case bool:
			return strings.Contains(text, fmt.Sprint(x))
		}
		return true
	}
	return walk(v)
}

// sameJSON reports whether text is JSON equal to compact (key order and
// spacing aside).
func sameJSON(text string, compact []byte) bool {
	t := bytes.TrimSpace([]byte(text))
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return false
	}
	var a, b any
	if json.Unmarshal(t, &a) != nil || json.Unmarshal(compact, &b) != nil {
		return false
	}
	ja, _ := json.Marshal(a) // maps marshal with sorted keys
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// outputSchemas holds the tools' outputSchemas, compiled on first use (a
// call's first structured result, or CheckOutputSchema: odek tools checks
// them all) so a run's start-up pays nothing for tools never called.
type outputSchemas struct {
	mu       sync.Mutex
	raw      map[string]json.RawMessage
	compiled map[string]compiledSchema
}

type compiledSchema struct {
	v   valueValidator
	err error
}

func (s *outputSchemas) set(tools []ToolDef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw = map[string]json.RawMessage{}
	s.compiled = map[string]compiledSchema{}
	for _, t := range tools {
		if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
			s.raw[t.Name] = t.OutputSchema
		}
	}
}

// get returns the tool's validator; nil without an outputSchema.
func (s *outputSchemas) get(tool string) (valueValidator, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, ok := s.raw[tool]
	if !ok {
		return nil, nil
	}
	cs, ok := s.compiled[tool]
	if !ok {
		cs.v, cs.err = compileOutputSchema(raw)
		s.compiled[tool] = cs
	}
	return cs.v, cs.err
}

// CheckOutputSchema compiles the tool's outputSchema now, as its first
// structured result would, and keeps the outcome for its calls: nil when
// the tool declares none or odek accepts it, else why odek refuses it —
// then every call of the tool fails. odek
// tools (the preflight) asks this of every MCP tool; a run stays lazy.
func (c *Client) CheckOutputSchema(tool string) error {
	if _, err := c.outSchemas.get(tool); err != nil {
		return newError(c.name, "tool "+tool, classMCP, err)
	}
	return nil
}

// CheckOutputSchema is Client.CheckOutputSchema for this tool.
func (a *ToolAdapter) CheckOutputSchema() error { return a.Client.CheckOutputSchema(a.ToolName) }

// errNoStructured is a result without structuredContent from a tool that
// declared an outputSchema (the spec requires one).
var errNoStructured = errors.New("tool declares an outputSchema but its result has no structuredContent")

// checkStructured validates structuredContent against the tool's
// outputSchema; a tool without one is not checked.
func (c *Client) checkStructured(tool string, structured json.RawMessage) error {
	v, err := c.outSchemas.get(tool)
	if err != nil {
		return fmt.Errorf("cannot check structured content: %w", err)
	}
	if v == nil {
		return nil
	}
	sc := bytes.TrimSpace(structured)
	if len(sc) == 0 || string(sc) == "null" {
		return errNoStructured
	}
	val, err := decodeJSONValue(sc)
	if err != nil {
		return fmt.Errorf("structuredContent is not JSON: %w", err)
	}
	if err := v.validate(val); err != nil {
		return fmt.Errorf("structuredContent does not match the tool's outputSchema: %w", err)
	}
	return nil
}

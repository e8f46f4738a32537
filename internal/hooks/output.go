package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// answer is a hook's JSON answer: Claude Code's fields. Anything else in
// the object is ignored; a field of the wrong type makes the answer
// invalid (a non-blocking error, or a block with on_error "block").
type answer struct {
	Continue       *bool     `json:"continue"`
	StopReason     string    `json:"stopReason"`
	SuppressOutput bool      `json:"suppressOutput"`
	SystemMessage  string    `json:"systemMessage"`
	Decision       string    `json:"decision"` // "block"; "approve" (older PreToolUse answers)
	Reason         string    `json:"reason"`
	Specific       *specific `json:"hookSpecificOutput"`
}

type specific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"` // allow, deny, ask (defer = ask)
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
}

// parseAnswer reads a hook's stdout. Output that does not start with "{"
// is plain text (isJSON false, no error); output that does must be one JSON
// object with Claude Code's fields, and nothing after it.
func parseAnswer(out []byte) (a answer, isJSON bool, err error) {
	t := bytes.TrimSpace(out)
	if len(t) == 0 || t[0] != '{' {
		return a, false, nil
	}
	if !utf8.Valid(t) {
		return a, true, fmt.Errorf("the JSON answer is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if err := dec.Decode(&a); err != nil {
		return answer{}, true, fmt.Errorf("the JSON answer does not parse: %v", err)
	}
	if dec.More() {
		return answer{}, true, fmt.Errorf("the JSON answer has more after its object")
	}
	if k := duplicateKey(t); k != "" {
		return answer{}, true, fmt.Errorf("the JSON answer gives %q twice", k)
	}
	switch a.Decision {
	case "", "block", "approve":
	default:
		return answer{}, true, fmt.Errorf(`decision %q is not "block"`, oneLine(a.Decision, 40))
	}
	if s := a.Specific; s != nil {
		switch s.PermissionDecision {
		case "", "allow", "deny", "ask":
		case "defer":
			s.PermissionDecision = "ask" // odek has no one to defer to but the operator
		default:
			return answer{}, true, fmt.Errorf(`permissionDecision %q is not allow, deny or ask`, oneLine(s.PermissionDecision, 40))
		}
		if u := bytes.TrimSpace(s.UpdatedInput); len(u) > 0 && (u[0] != '{' && string(u) != "null") {
			return answer{}, true, fmt.Errorf("updatedInput is not an object")
		}
		if string(bytes.TrimSpace(s.UpdatedInput)) == "null" {
			s.UpdatedInput = nil
		}
	}
	return a, true, nil
}

// Caps on what a hook's output may put in front of the model or the
// operator (Claude Code caps additionalContext at 10,000 characters too).
const (
	maxContextBytes = 10_000
	maxReasonBytes  = 4_000
	maxWarnBytes    = 1_000
)

// clean makes hook output safe to show: valid UTF-8, no control or format
// characters but newline and tab, trimmed, at most max bytes with a note
// saying how much was cut.
func clean(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(min(len(s), max+64))
	cut := 0
	for _, r := range s {
		if r == '\r' {
			continue
		}
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029') {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > max {
			cut += utf8.RuneLen(r)
			continue
		}
		b.WriteRune(r)
	}
	out := strings.TrimSpace(b.String())
	if cut > 0 {
		out += fmt.Sprintf(" […%d more bytes cut]", cut)
	}
	return out
}

// oneLine is clean on one line.
func oneLine(s string, max int) string {
	return strings.Join(strings.Fields(clean(s, max)), " ")
}

package approval

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// MaxSchemaBytes is the largest tool input schema odek registers; a larger
// one is skipped with a warning (it would crowd the model's context).
const MaxSchemaBytes = 256 << 10

// injectionPhrases are matched against lower-cased text whose white space is
// collapsed and hidden characters removed. The list is deliberately short and
// specific: it is a tripwire for blatant attacks, not a classifier.
var injectionPhrases = []string{
	"ignore previous instructions",
	"ignore all previous",
	"ignore the above",
	"ignore prior instructions",
	"disregard previous",
	"disregard all previous",
	"disregard prior",
	"forget your instructions",
	"forget all previous",
	"system prompt",
	"new instructions:",
	"do not tell the user",
	"without telling the user",
	"<|im_start|>",
	"<|im_end|>",
	"<|system|>",
	"<|endoftext|>",
	"[inst]",
	"<<sys>>",
	"untrusted_content",
}

// injectionHit returns the first phrase found in s, or "".
func injectionHit(s string) string {
	norm := normalizeForScan(s)
	for _, p := range injectionPhrases {
		if strings.Contains(norm, p) {
			return p
		}
	}
	return ""
}

// normalizeForScan lower-cases s, drops format characters (zero-width and
// bidi controls, which could split a phrase invisibly) and collapses each run
// of white space into one space.
func normalizeForScan(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Cf, r):
			continue
		case unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// schemaInjectionHit scans every string in a JSON schema, keys included.
func schemaInjectionHit(schema json.RawMessage) string {
	if len(schema) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return injectionHit(string(schema))
	}
	return walkStrings(v)
}

func walkStrings(v any) string {
	switch t := v.(type) {
	case string:
		return injectionHit(t)
	case []any:
		for _, e := range t {
			if hit := walkStrings(e); hit != "" {
				return hit
			}
		}
	case map[string]any:
		for k, e := range t {
			if hit := injectionHit(k); hit != "" {
				return hit
			}
			if hit := walkStrings(e); hit != "" {
				return hit
			}
		}
	}
	return ""
}

// duplicateKey returns a key that appears twice in one object of a JSON
// schema, or "". encoding/json keeps the last of two equal keys, so the
// injection scan and the grant's fingerprint would see only that one while
// the model is sent the raw bytes, both of them; such a schema is refused
// rather than read one way here and another there. A schema that is not
// JSON has no duplicates (the scan then reads its raw bytes).
func duplicateKey(schema json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(schema))
	type frame struct {
		keys    map[string]bool // nil for an array
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.keys != nil && top.wantKey {
			if top.keys[k] {
				return k
			}
			top.keys[k], top.wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 { // a value ended: its object wants a key next
			stack[len(stack)-1].wantKey = true
		}
	}
}

package artifact

import (
	"encoding/json"
	"strings"
)

// startsAsEnvelope reports whether broken JSON text was meant as an
// envelope: its valid prefix sets the top-level schema to
// odek.tool-result/v1 (escapes decoded), or the schema name appears in it at
// all, written plainly or with JSON's escaped slash. A false positive only
// turns garbage into an error; a false negative would hand the model a raw,
// unvalidated envelope.
func startsAsEnvelope(body string) bool {
	if strings.Contains(body, SchemaToolResult) || strings.Contains(body, `odek.tool-result\/v1`) {
		return true
	}
	dec := json.NewDecoder(strings.NewReader(body))
	depth, expectKey, key := 0, false, ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
				if depth == 1 {
					expectKey = d == '{'
				}
			default:
				if depth--; depth == 1 {
					expectKey = true // a container value ended
				}
			}
			continue
		}
		switch {
		case depth != 1:
		case expectKey:
			key, _ = tok.(string)
			expectKey = false
		default:
			if s, ok := tok.(string); ok && key == "schema" && s == SchemaToolResult {
				return true
			}
			expectKey = true
		}
	}
}

// schemaFields counts the top-level keys of the valid JSON object body that
// encoding/json takes for the schema field (any case, Unicode folds
// included) and reports whether one of them holds odek.tool-result/v1.
// The decoder keeps the last of them, so without this check a later
// "Schema": "x" would pass an envelope to the model as raw text, its refs
// never validated, while a reader that takes the first key sees an envelope.
func schemaFields(body string) (n int, env bool) {
	dec := json.NewDecoder(strings.NewReader(body))
	depth, expectKey, isSchema := 0, false, false
	for {
		tok, err := dec.Token()
		if err != nil {
			return n, env
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
				expectKey = depth == 1 && d == '{'
			} else if depth--; depth == 1 {
				expectKey = true // a container value ended
			}
			continue
		}
		switch {
		case depth != 1:
		case expectKey:
			key, _ := tok.(string)
			isSchema, expectKey = strings.EqualFold(key, "schema"), false
			if isSchema {
				n++
			}
		default:
			if s, ok := tok.(string); ok && isSchema && s == SchemaToolResult {
				env = true
			}
			expectKey = true
		}
	}
}

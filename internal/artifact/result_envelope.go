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

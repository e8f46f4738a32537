package artifact

import (
	"encoding/json"
	"strings"
)

// Ref is one odek.artifact-ref/v1 reference as sent by a tool. Optional fields
// are zero when absent; SizeBytes is a pointer so that 0 and "absent" differ.
type Ref struct {
	Schema    string `json:"schema"`
	ID        string `json:"id"`
	URI       string `json:"uri"`
	MediaType string `json:"media_type"`
	SHA256    string `json:"sha256,omitempty"`
	SizeBytes *int64 `json:"size_bytes,omitempty"`
	Summary   string `json:"summary,omitempty"`
}

// Envelope is a decoded odek.tool-result/v1 payload.
type Envelope struct {
	Schema    string `json:"schema"`
	Text      string `json:"text"`
	Artifacts []Ref  `json:"artifacts"`
}

const bom = "\uFEFF"

// ParseEnvelope reports whether text is an odek.tool-result/v1 envelope and
// decodes it. ok=false means plain text: not starting with "{" after trimming
// space and a BOM, JSON whose schema is absent or another value, or broken
// JSON that shows no sign of being an envelope. A detected envelope that does
// not decode (broken JSON that starts as an envelope included: see
// startsAsEnvelope), or carries more than MaxRefs refs, is an error wrapping
// ErrMalformedEnvelope: such text never reaches the model raw, and so is
// one whose schema field is given twice, one of them the envelope's. Unknown
// fields are ignored (the contract's additive rule).
func ParseEnvelope(text string) (env *Envelope, ok bool, err error) {
	body := trimEnvelopeSpace(text)
	if !strings.HasPrefix(body, "{") {
		return nil, false, nil
	}
	probe, syntaxErr := probeSchema(body)
	if syntaxErr != nil {
		if startsAsEnvelope(body) {
			return nil, true, malformed("not valid JSON: %v", syntaxErr)
		}
		return nil, false, nil
	}
	if probe.fields > 1 && probe.anyEnv {
		return nil, true, malformed("the schema field is given %d times (keys are matched ignoring case); give it once", probe.fields)
	}
	if !probe.isEnv {
		return nil, false, nil
	}
	var e Envelope
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		return nil, true, malformed("%v", err)
	}
	if n := len(e.Artifacts); n > MaxRefs {
		return nil, true, malformed("%d artifact refs exceed the limit of %d", n, MaxRefs)
	}
	return &e, true, nil
}

// trimEnvelopeSpace strips surrounding white space and any leading BOMs.
func trimEnvelopeSpace(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, bom) {
		s = strings.TrimSpace(strings.TrimPrefix(s, bom))
	}
	return s
}

// schemaProbe is what one pass over a JSON object's top-level members
// tells about its schema field.
type schemaProbe struct {
	// fields counts the keys encoding/json takes for the schema field (any
	// case, Unicode folds included: strings.EqualFold).
	fields int
	// isEnv: the last of them, the one encoding/json keeps, holds
	// odek.tool-result/v1; anyEnv: one of them does.
	isEnv, anyEnv bool
}

// probeSchema reads only the top-level members of the object body, so
// that valid JSON which is not an envelope stays plain text whatever its
// other fields hold, and a large structured result costs json.Valid's scan
// and a skim, not a token per value. A non-nil error means body is not
// valid JSON.
func probeSchema(body string) (schemaProbe, error) {
	var p schemaProbe
	if !json.Valid([]byte(body)) {
		return p, json.Unmarshal([]byte(body), new(struct{})) // its message names the fault
	}
	for rest := skipSpace(body[1:]); rest != "" && rest[0] != '}'; {
		keyEnd := skipString(rest)
		var key string
		_ = json.Unmarshal([]byte(rest[:keyEnd]), &key)
		rest = skipSpace(rest[keyEnd:])[1:] // the ':'
		rest = skipSpace(rest)
		valueEnd := skipValue(rest)
		if strings.EqualFold(key, "schema") {
			var schema string
			env := json.Unmarshal([]byte(rest[:valueEnd]), &schema) == nil && schema == SchemaToolResult
			p.fields++
			p.isEnv, p.anyEnv = env, p.anyEnv || env
		}
		rest = skipSpace(rest[valueEnd:])
		if rest != "" && rest[0] == ',' {
			rest = skipSpace(rest[1:])
		}
	}
	return p, nil
}

// The skimmers below walk JSON that json.Valid accepted, so they only find
// where a value ends: strings (with their escapes) and nesting.

func skipSpace(s string) string { return strings.TrimLeft(s, " \t\r\n") }

// skipString is the length of the string literal s starts with.
func skipString(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(s)
}

// skipValue is the length of the value s starts with.
func skipValue(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			i += skipString(s[i:]) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		if depth == 0 && (s[i] == '"' || s[i] == '}' || s[i] == ']') {
			return i + 1
		}
		if depth < 0 {
			return i
		}
	}
	return len(s)
}

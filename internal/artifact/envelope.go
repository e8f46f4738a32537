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
	isEnv, syntaxErr := probeSchema(body)
	if syntaxErr != nil {
		if startsAsEnvelope(body) {
			return nil, true, malformed("not valid JSON: %v", syntaxErr)
		}
		return nil, false, nil
	}
	if n, env := schemaFields(body); n > 1 && env {
		return nil, true, malformed("the schema field is given %d times (keys are matched ignoring case); give it once", n)
	}
	if !isEnv {
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

// probeSchema decodes only the schema field, so that valid JSON which is
// not an envelope stays plain text whatever its other fields hold. A non-nil
// error means body is not valid JSON.
func probeSchema(body string) (bool, error) {
	var probe struct {
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal([]byte(body), &probe); err != nil {
		return false, err
	}
	var schema string
	if json.Unmarshal(probe.Schema, &schema) != nil {
		return false, nil
	}
	return schema == SchemaToolResult, nil
}

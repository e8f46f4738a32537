package mcpclient

// This file is the only one that knows which JSON Schema library checks a
// tool's structuredContent against its outputSchema: swapping the library
// is a change here and nowhere else. It is google/jsonschema-go, the one
// internal/outschema uses (DECISION 16 revised): its package initializer
// is cheap, where santhosh-tekuri's compiles five metaschemas in every
// process, sub-agents and `odek version` included.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// valueValidator checks one decoded JSON value.
type valueValidator interface {
	validate(v any) error
}

// errExternalRef refuses references to other documents: a server's schema
// is checked as sent, never by fetching anything.
var errExternalRef = errors.New("references to other documents are not followed")

func refuseLoader(*url.URL) (*jsonschema.Schema, error) { return nil, errExternalRef }

type resolvedValidator struct{ s *jsonschema.Resolved }

func (v resolvedValidator) validate(x any) error {
	if err := v.s.Validate(x); err != nil {
		return errors.New(oneLineSchemaError(err))
	}
	return nil
}

// outputSchemaURI is the base a server's schema is resolved against.
const outputSchemaURI = "file:///mcp-output-schema.json"

// compileOutputSchema compiles a tool's outputSchema (draft 2020-12 unless
// its $schema names draft-07).
func compileOutputSchema(raw []byte) (valueValidator, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("outputSchema is not a JSON Schema: %v", oneLineSchemaError(err))
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{BaseURI: outputSchemaURI, Loader: refuseLoader})
	if err != nil {
		return nil, fmt.Errorf("outputSchema does not compile: %v", oneLineSchemaError(err))
	}
	if err := checkRefCycles(&s); err != nil {
		return nil, fmt.Errorf("outputSchema is refused: %v", err)
	}
	return resolvedValidator{rs}, nil
}

// decodeJSONValue decodes raw the way the validator expects values: as
// encoding/json does.
func decodeJSONValue(raw []byte) (any, error) {
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}

// oneLineSchemaError flattens the library's message, bounded.
func oneLineSchemaError(err error) string {
	return clip(strings.Join(strings.Fields(err.Error()), " "), 512)
}

package mcpclient

// This file is the only one that knows which JSON Schema library checks a
// tool's structuredContent against its outputSchema: swapping the library
// is a change here and nowhere else.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// valueValidator checks one decoded JSON value.
type valueValidator interface {
	validate(v any) error
}

// errExternalRef refuses references to other documents: a server's schema
// is checked as sent, never by fetching anything.
var errExternalRef = errors.New("references to other documents are not followed")

type refuseLoader struct{}

func (refuseLoader) Load(string) (any, error) { return nil, errExternalRef }

type tekuriValidator struct{ s *jsonschema.Schema }

func (v tekuriValidator) validate(x any) error {
	if err := v.s.Validate(x); err != nil {
		return errors.New(oneLineSchemaError(err))
	}
	return nil
}

// compileOutputSchema compiles a tool's outputSchema (draft 2020-12 unless
// its $schema names another draft the library knows).
func compileOutputSchema(raw []byte) (valueValidator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("outputSchema is not JSON: %w", err)
	}
	const loc = "mcp-output-schema.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("outputSchema: %v", oneLineSchemaError(err))
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("outputSchema does not compile: %v", oneLineSchemaError(err))
	}
	return tekuriValidator{s}, nil
}

// decodeJSONValue decodes raw the way the validator expects values.
func decodeJSONValue(raw []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// oneLineSchemaError flattens the library's multi-line message, bounded.
func oneLineSchemaError(err error) string {
	return clip(strings.Join(strings.Fields(err.Error()), " "), 512)
}

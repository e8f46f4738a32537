package outschema

import (
	"strings"
	"testing"
)

// Tests that close survivors of mutation testing (scripts/mutate.sh):
// values exactly at a bound are valid, and one past it is reported by odek's
// walk in its own words (not the validator library's fallback).
func TestBoundsExactly(t *testing.T) {
	for _, tc := range []struct {
		schema, valid, invalid, msg string
	}{
		{`{"minimum": 5}`, `5`, `4.999`, "minimum: got 4.999, want 5"},
		{`{"maximum": 5}`, `5`, `5.001`, "maximum: got 5.001, want 5"},
		{`{"exclusiveMinimum": 5}`, `5.001`, `5`, "exclusiveMinimum: got 5, want greater than 5"},
		{`{"exclusiveMaximum": 5}`, `4.999`, `5`, "exclusiveMaximum: got 5, want less than 5"},
		{`{"multipleOf": 0.5}`, `1.5`, `1.25`, "multipleOf: got 1.25, want a multiple of 0.5"},
		{`{"minItems": 2}`, `[1, 2]`, `[1]`, "minItems: got 1, want 2"},
		{`{"maxItems": 2}`, `[1, 2]`, `[1, 2, 3]`, "maxItems: got 3, want 2"},
		{`{"minLength": 2}`, `"ab"`, `"a"`, "minLength: got 1, want 2"},
		{`{"maxLength": 2}`, `"éé"`, `"abc"`, "maxLength: got 3, want 2"},
		{`{"minProperties": 1}`, `{"a": 1}`, `{}`, "minProperties: got 0, want 1"},
		{`{"maxProperties": 1}`, `{"a": 1}`, `{"a": 1, "b": 2}`, "maxProperties: got 2, want 1"},
		{`{"contains": {"type": "integer"}, "minContains": 2}`, `[1, 2, "a"]`, `[1, "a"]`, "contains: 1 items match"},
		{`{"contains": {"type": "integer"}, "maxContains": 2}`, `[1, 2, "a"]`, `[1, 2, 3]`, "maxContains: 3 items match"},
		{`{"contains": {"type": "integer"}, "minContains": 0}`, `["a"]`, `"x"`, ""},
		{`{"uniqueItems": true}`, `[[1], [1, 2], {"a": 1}, {"a": 1, "b": 2}]`, `[{"a": [1]}, {"a": [1]}]`, "uniqueItems: items at 0 and 1 are equal"},
		{`{"pattern": "^a"}`, `"ab"`, `"ba"`, "pattern"},
		{`{"prefixItems": [{"type": "string"}]}`, `["a", 1]`, `[1]`, "got number, want string"},
	} {
		s := mustCompile(t, tc.schema)
		if _, err := s.Check(tc.valid); err != nil {
			t.Errorf("%s: %s is valid, got %v", tc.schema, tc.valid, err)
		}
		if tc.msg == "" {
			continue
		}
		_, err := s.Check(tc.invalid)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %s: got %v, want %q", tc.schema, tc.invalid, err, tc.msg)
		}
	}
}

// draft-07 has no prefixItems: the keyword is ignored there.
func TestDraft7IgnoresPrefixItems(t *testing.T) {
	s := mustCompile(t, `{"$schema": "http://json-schema.org/draft-07/schema#", "prefixItems": [{"type": "string"}]}`)
	if _, err := s.Check(`[1]`); err != nil {
		t.Errorf("draft-07 applied prefixItems: %v", err)
	}
}

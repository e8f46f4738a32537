package outschema

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every problem is placed in the answer, whichever keyword found it.
func TestViolationsPlaced(t *testing.T) {
	tests := []struct {
		name, schema, answer string
		want                 []Violation
	}{
		{"anyOf: none matches", `{"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}`, `{"a": 5}`, []Violation{
			{"/a", "anyOf: the value matches none of the 2 alternatives"}, {"/a", "got number, want string"}, {"/a", "got number, want null"}}},
		{"anyOf: one matches", `{"anyOf": [{"type": "string"}, {"type": "integer"}]}`, `5`, nil},
		{"oneOf: two match", `{"items": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}`, `[1.5, 2]`, []Violation{
			{"/1", "oneOf: the value matches alternatives 0 and 1; want exactly one"}}},
		{"not", `{"properties": {"k": {"not": {"const": "x"}}}}`, `{"k": "x"}`, []Violation{
			{"/k", `not: the value must not match the schema at "#/properties/k/not"`}}},
		{"if then else", `{"if": {"properties": {"t": {"const": "n"}}}, "then": {"properties": {"v": {"type": "number"}}}, "else": {"properties": {"v": {"type": "string"}}}}`,
			`{"t": "n", "v": "1"}`, []Violation{{"/v", "got string, want number"}}},
		{"else branch", `{"if": {"properties": {"t": {"const": "n"}}}, "then": {"properties": {"v": {"type": "number"}}}, "else": {"properties": {"v": {"type": "string"}}}}`,
			`{"t": "s", "v": 1}`, []Violation{{"/v", "got number, want string"}}},
		{"prefixItems and items", `{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}`, `["a", 1, "b", 2.5]`, []Violation{
			{"/2", "got string, want integer"}, {"/3", "got number, want integer"}}},
		{"draft-07 tuple", `{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": {"type": "boolean"}}`,
			`[1, true, 2]`, []Violation{{"/0", "got number, want string"}, {"/2", "got number, want boolean"}}},
		{"draft-07 ignores keywords beside $ref", `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s", "minLength": 5}}}`,
			`{"a": "x"}`, nil},
		{"2020-12 applies keywords beside $ref", `{"$defs": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/s", "minLength": 5}}}`,
			`{"a": "x"}`, []Violation{{"/a", "minLength: got 1, want 5"}}},
		{"contains", `{"contains": {"type": "integer"}, "maxContains": 1}`, `["a", 1, 2]`, []Violation{
			{"", `maxContains: 2 items match the schema at "#/contains", want at most 1`}}},
		{"contains none", `{"contains": {"type": "integer"}}`, `["a"]`, []Violation{
			{"", `contains: 0 items match the schema at "#/contains", want at least 1`}}},
		{"uniqueItems by value", `{"uniqueItems": true}`, `[1, {"a": [2]}, 1.0]`, []Violation{{"", "uniqueItems: items at 0 and 2 are equal"}}},
		{"pattern and lengths", `{"properties": {"id": {"pattern": "^[a-z]+$", "maxLength": 3}}}`, `{"id": "ABCD"}`, []Violation{
			{"/id", "maxLength: got 4, want 3"}, {"/id", "'ABCD' does not match pattern '^[a-z]+$'"}}},
		{"length counts runes", `{"maxLength": 2}`, `"éé"`, nil},
		{"exclusive bounds and multipleOf", `{"items": {"exclusiveMinimum": 0, "exclusiveMaximum": 10, "multipleOf": 0.5}}`, `[0, 10, 0.75, 9.5]`, []Violation{
			{"/0", "exclusiveMinimum: got 0, want greater than 0"}, {"/1", "exclusiveMaximum: got 10, want less than 10"},
			{"/2", "multipleOf: got 0.75, want a multiple of 0.5"}}},
		{"patternProperties and additionalProperties", `{"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "integer"}}`,
			`{"x-a": 1, "b": "2", "c": 3}`, []Violation{{"/b", "got string, want integer"}, {"/x-a", "got number, want string"}}},
		{"propertyNames and counts", `{"propertyNames": {"maxLength": 2}, "maxProperties": 1}`, `{"abc": 1, "d": 2}`, []Violation{
			{"", "maxProperties: got 2, want 1"}, {"", `property name 'abc' does not match the schema at "#/propertyNames"`}}},
		{"dependentRequired", `{"dependentRequired": {"card": ["cvc"]}}`, `{"card": "1"}`, []Violation{
			{"", "missing property 'cvc' (required when 'card' is present)"}}},
		{"dependentSchemas", `{"dependentSchemas": {"card": {"required": ["cvc"]}}}`, `{"card": "1"}`, []Violation{{"", "missing property 'cvc'"}}},
		{"draft-07 dependencies", `{"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}`,
			`{"a": 1, "c": 2}`, []Violation{{"", "missing property 'b' (required when 'a' is present)"}, {"", "missing property 'd'"}}},
		{"false schema", `{"properties": {"never": false}}`, `{"never": 1}`, []Violation{{"/never", "false schema: no value is allowed here"}}},
		{"type list", `{"type": ["string", "null"]}`, `1`, []Violation{{"", "got number, want string or null"}}},
		{"const object", `{"const": {"a": [1, "x"]}}`, `{"a": [1.0, "y"]}`, []Violation{{"", `value must be {"a":[1,"x"]}`}}},
		{"anchor ref", `{"$defs": {"n": {"$anchor": "num", "type": "number"}}, "items": {"$ref": "#num"}}`, `[1, "2"]`, []Violation{{"/1", "got string, want number"}}},
		{"huge exponent compared, not built", `{"maximum": 1e300}`, `1e999999999`, []Violation{{"", "maximum: got 1e999999999, want 1e300"}}},
		{"tiny exponent", `{"exclusiveMinimum": 0}`, `1e-999999999`, []Violation{{"", "exclusiveMinimum: got 1e-999999999, want greater than 0"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			_, err := s.Check(tt.answer)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("valid answer refused: %v", err)
				}
				return
			}
			var m *MismatchError
			if !errors.As(err, &m) {
				t.Fatalf("err = %v, want a mismatch", err)
			}
			if diff := cmp.Diff(tt.want, m.Violations); diff != "" {
				t.Fatalf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// A keyword the walk does not place still refuses the answer, in the
// validator's words with the schema location.
func TestViolationLibraryFallback(t *testing.T) {
	s := mustCompile(t, `{"properties": {"a": {"type": "object", "properties": {"b": {}}, "unevaluatedProperties": false}}}`)
	_, err := s.Check(`{"a": {"b": 1, "c": 2}}`)
	var m *MismatchError
	if !errors.As(err, &m) || len(m.Violations) != 1 || m.Violations[0].Pointer != "" {
		t.Fatalf("err = %v", err)
	}
	want := `the value does not match the schema at "#/properties/a/unevaluatedProperties": not: validated against <anonymous schema>`
	if got := m.Violations[0].Message; got != want {
		t.Fatalf("message = %q\nwant      %q", got, want)
	}
}

// Validate takes values decoded by encoding/json as well (float64 numbers).
func TestValidateDecodedValue(t *testing.T) {
	s := mustCompile(t, verdictSchema)
	v := map[string]any{"verdict": "pass", "findings": []any{map[string]any{"file": "a", "line": 2.0}}}
	if vs := s.Validate(v); vs != nil {
		t.Fatal(vs)
	}
	v["findings"] = []any{map[string]any{"file": "a", "line": 2.5}}
	if vs := s.Validate(v); len(vs) != 1 || vs[0] != (Violation{"/findings/0/line", "got number, want integer"}) {
		t.Fatal(vs)
	}
}

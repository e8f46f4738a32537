package outschema

import (
	"errors"
	"strings"
	"testing"
)

// The validator library checks no schema against its metaschema; these are
// the schemas it would take that odek refuses at setup.
func TestCompileRefusesMalformed(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"unknown type", `{"type": "objekt"}`, `at "/type": value must be one of 'array', 'boolean', 'integer'`},
		{"unknown type in a list", `{"properties": {"a": {"type": ["string", "nul"]}}}`, `at "/properties/a/type/1": value must be one of`},
		{"type listed twice", `{"type": ["string", "string"]}`, `at "/type": type "string" is listed twice`},
		{"type not a string", `{"type": 3}`, `at "/type": got number, want string or array`},
		{"empty type list", `{"type": []}`, `at "/type": an empty array`},
		{"negative count", `{"minLength": -1}`, `at "/minLength": got -1, want a non-negative integer`},
		{"fractional count", `{"maxItems": 1.5}`, `at "/maxItems": got 1.5, want a non-negative integer`},
		{"multipleOf zero", `{"multipleOf": 0}`, `at "/multipleOf": got 0, want a number greater than 0`},
		{"required not strings", `{"required": ["a", 1]}`, `at "/required/1": got number, want string`},
		{"required twice", `{"required": ["a", "a"]}`, `at "/required": "a" is listed twice`},
		{"properties not an object", `{"properties": []}`, `at "/properties": got array, want object`},
		{"subschema not a schema", `{"properties": {"a": "string"}}`, `at "/properties/a": got string, want object or boolean`},
		{"empty anyOf", `{"anyOf": []}`, `at "/anyOf": an empty array`},
		{"enum not an array", `{"enum": "a"}`, `at "/enum": got string, want array`},
		{"uniqueItems not a boolean", `{"uniqueItems": "yes"}`, `at "/uniqueItems": got string, want boolean`},
		{"bad pattern property", `{"patternProperties": {"([": {}}}`, `at "/patternProperties/([": '([' is not valid regex`},
		{"2020-12 items as a list", `{"items": [{"type": "string"}]}`, `at "/items": got array, want object or boolean`},
		{"dependentRequired not names", `{"dependentRequired": {"a": [1]}}`, `at "/dependentRequired/a/0": got number, want string`},
		{"embedded $id", `{"$defs": {"a": {"$id": "a.json"}}}`, `at "/$defs/a/$id": an $id inside the schema is not supported`},
		{"anchor twice", `{"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}}`, `anchor "x" is defined twice`},
		{"ref into a non-schema", `{"properties": {"a": {"$ref": "#/required"}}, "required": []}`, `$ref "#/required" points to nothing in the schema`},
		{"ref not a fragment", `{"$ref": "#%zz"}`, `is not a valid URI fragment`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("s.json", []byte(tt.doc))
			var se *SchemaError
			if !errors.As(err, &se) || se.File != "s.json" || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant containing %q", err, tt.want)
			}
		})
	}
}

// A $ref cycle that never descends into the value would recurse for ever
// when an answer is validated (the old validator failed only then, after
// the model had been paid for); it is refused when the schema is compiled.
func TestCompileRefusesRefCycles(t *testing.T) {
	tests := []struct{ name, doc, at, loop string }{
		{"self", `{"$defs": {"a": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}}`,
			"/$defs/a/$ref", `"#/$defs/a" → "#/$defs/a"`},
		{"root", `{"$ref": "#"}`, "/$ref", `"#" → "#"`},
		{"two refs", `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "object", "$ref": "#/$defs/a"}}}`,
			"/$defs/b/$ref", `"#/$defs/a" → "#/$defs/b" → "#/$defs/a"`},
		{"through allOf", `{"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}}`,
			"/$defs/a/allOf/0/$ref", `"#/$defs/a" → "#/$defs/a/allOf/0" → "#/$defs/a"`},
		{"through not and an anchor", `{"$defs": {"a": {"$anchor": "A", "not": {"$ref": "#A"}}}}`,
			"/$defs/a/not/$ref", `"#/$defs/a" → "#/$defs/a/not" → "#/$defs/a"`},
		{"through if", `{"if": {"$ref": "#"}}`, "/if/$ref", `"#" → "#/if" → "#"`},
		// contentSchema validates nothing, but the library follows a $ref into it
		{"into contentSchema", `{"$ref": "#/contentSchema", "contentSchema": {"$ref": "#"}}`, "/contentSchema/$ref",
			`"#" → "#/contentSchema" → "#"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("s.json", []byte(tt.doc))
			var se *SchemaError
			if !errors.As(err, &se) || se.Pointer != tt.at || !strings.Contains(se.Msg, "a $ref cycle that never descends into the value: "+tt.loop) {
				t.Fatalf("err = %v (pointer %q)\nwant at %q the loop %s", err, pointerOf(se), tt.at, tt.loop)
			}
		})
	}
}

func pointerOf(se *SchemaError) string {
	if se == nil {
		return "<none>"
	}
	return se.Pointer
}

// Recursion through a part of the value is a tree, not a cycle.
func TestCompileAcceptsRecursion(t *testing.T) {
	s := mustCompile(t, `{"$defs": {"node": {"type": "object", "required": ["name"], "properties": {
	  "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
	  "$ref": "#/$defs/node"}`)
	if _, err := s.Check(`{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}`); err != nil {
		t.Fatal(err)
	}
	_, err := s.Check(`{"name": "a", "children": [{"name": "b", "children": [{"name": 7}]}]}`)
	var m *MismatchError
	if !errors.As(err, &m) || len(m.Violations) != 1 || m.Violations[0] != (Violation{"/children/0/children/0/name", "got number, want string"}) {
		t.Fatalf("err = %v", err)
	}
	// a root $id names the file: a $ref through it stays inside
	mustCompile(t, `{"$id": "https://example.com/v.json", "properties": {"a": {"$ref": "https://example.com/v.json#/$defs/x"}}, "$defs": {"x": {}}}`)
}

package outschema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCheck feeds arbitrary model output to the parser and validator: it
// must never panic, and whatever it accepts must be exactly one valid JSON
// value that matches the schema, compact and on one line.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{
		"", "{}", `{"verdict":"pass","findings":[]}`, "```json\n{\"verdict\":\"fail\",\"findings\":[{\"file\":\"a\",\"line\":1}]}\n```",
		"```\n[]\n```", "```yaml\nx\n```", "``` json", "Here:\n```json\n{}\n```", `{"a":1,"a":2}`, "[[[[[[[[[[",
		`{"verdict":"pass","findings":[],"score":1e400}`, "\"\xff\"", `{"findings":[{"line":1.0}]}`, "null", "```json\n```",
	} {
		f.Add(seed)
	}
	s, err := Compile("verdict.json", []byte(verdictSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		v, err := s.Check(answer)
		if err != nil {
			if v != nil {
				t.Fatal("value with an error")
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") && !strings.Contains(answer, "\n") {
				t.Fatalf("multi-line error for a one-line answer: %q", msg)
			}
			ReAsk(err.(*MismatchError))
			return
		}
		if !json.Valid(v) || !utf8.Valid(v) || strings.ContainsAny(string(v), "\n\r\t") {
			t.Fatalf("accepted %q as %q", answer, v)
		}
		if _, err := s.Check(string(v)); err != nil {
			t.Fatalf("the accepted value %s does not check again: %v", v, err)
		}
	})
}

// agreeSchemas exercise the keywords the walk knows.
var agreeSchemas = []string{
	verdictSchema,
	`{"anyOf": [{"type": "string", "maxLength": 3}, {"type": "array", "items": {"type": "integer"}, "uniqueItems": true}], "not": {"const": "no"}}`,
	`{"oneOf": [{"type": "number", "multipleOf": 0.5}, {"type": "integer", "exclusiveMinimum": 2}]}`,
	`{"type": "object", "patternProperties": {"^x": {"type": "string"}}, "additionalProperties": {"type": ["boolean", "null"]},
	  "propertyNames": {"minLength": 1}, "dependentRequired": {"a": ["b"]}, "minProperties": 1,
	  "if": {"required": ["t"]}, "then": {"properties": {"t": {"enum": [1, "one", null]}}}, "else": {"maxProperties": 3}}`,
	`{"prefixItems": [{"type": "string"}], "items": {"type": "number", "maximum": 10}, "contains": {"const": 1}, "maxContains": 2}`,
	`{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "integer"}], "additionalItems": false,
	  "definitions": {"s": {"type": "string"}}, "dependencies": {"a": {"properties": {"b": {"$ref": "#/definitions/s"}}}}}`,
}

// FuzzValidateAgree checks odek's walk against the validator library: an
// answer the library accepts is accepted (unless a number in it is not
// exactly a float64, which only the walk compares exactly), and an answer
// the library refuses gets at least one placed violation.
func FuzzValidateAgree(f *testing.F) {
	for _, seed := range []string{`"ab"`, `[1, 2, 2]`, `"no"`, `1.5`, `3`, `{"x1": "a", "b": null}`, `{"a": 1}`, `{"t": 1}`,
		`["a", 1, 1, 11]`, `[1, 2]`, `{"a": 1, "b": 2}`, `{}`, `[]`, `null`} {
		f.Add(seed)
	}
	var schemas []*Schema
	for _, doc := range agreeSchemas {
		s, err := Compile("s.json", []byte(doc))
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		_, v, err := ParseAnswer(answer)
		if err != nil {
			return
		}
		for i, s := range schemas {
			libErr := s.sch.Validate(forValidator(v))
			vs := s.Validate(v)
			if libErr != nil && len(vs) == 0 {
				t.Fatalf("schema %d: library refuses %s (%v) but no violation", i, answer, libErr)
			}
			if libErr == nil && len(vs) > 0 && exactFloats(v) {
				t.Fatalf("schema %d: library accepts %s, the walk refuses it: %v", i, answer, vs)
			}
		}
	})
}

// exactFloats reports whether every number in v is exactly a float64.
func exactFloats(v any) bool {
	switch t := v.(type) {
	case json.Number:
		r, ok := number(t)
		f, _ := strconv.ParseFloat(string(t), 64)
		g, ok2 := number(f)
		return ok && ok2 && r.Cmp(g) == 0
	case []any:
		for _, x := range t {
			if !exactFloats(x) {
				return false
			}
		}
	case map[string]any:
		for _, x := range t {
			if !exactFloats(x) {
				return false
			}
		}
	}
	return true
}

// FuzzCompile feeds arbitrary schema documents (a sub-agent's output schema
// is the model's): compiling never panics, and a schema that compiles
// validates values without recursing for ever.
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{verdictSchema, `{"$ref": "#"}`, `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}}`,
		`{"items": {"$ref": "#"}}`, `{"type": "objekt"}`, `{"$anchor": "a", "not": {"$ref": "#a"}}`, `{"properties": {"a~1": {"$ref": "#/properties/a~01"}}}`,
		`{"$dynamicAnchor": "m", "$dynamicRef": "#m"}`, `{"if": true, "then": {"$ref": "#/else"}, "else": {"$ref": "#/then"}}`,
		`{"$reF": "#"}`, `{"$ref": "#/contentSchema", "contentSchema": {"$ref": "#"}}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		s, err := Compile("s.json", []byte(doc))
		if err != nil {
			return
		}
		for _, v := range []string{`{}`, `[]`, `{"a": [{"a~1": 1}]}`, `"x"`, `1`, `null`} {
			_, _ = s.Check(v)
		}
	})
}

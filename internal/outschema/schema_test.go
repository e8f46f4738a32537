package outschema

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustCompile(t *testing.T, doc string) *Schema {
	t.Helper()
	s, err := Compile("verdict.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"not JSON", `{"type": "object",}`, `output schema s.json: not JSON: invalid character '}' looking for beginning of object key string at line 1, column 19`},
		{"empty file", ``, `output schema s.json: not JSON: empty`},
		{"not an object", `true`, `output schema s.json: the schema must be a JSON object`},
		{"duplicate key", `{"type":"object","type":"array"}`, `not JSON: duplicate key "type"`},
		{"bad type", `{"properties": {"n": {"type": "integr"}}}`, `output schema s.json: at "/properties/n/type": value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`},
		{"draft-07 keyword type", `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"n": {"minimum": "1"}}}`, `at "/properties/n/minimum": got string, want number`},
		{"unsupported draft", `{"$schema": "http://json-schema.org/draft-04/schema#"}`, `output schema s.json: at "/$schema": unsupported $schema "http://json-schema.org/draft-04/schema#": use draft 2020-12`},
		{"non-string draft", `{"$schema": 7}`, `at "/$schema": unsupported $schema 7`},
		{"bad regex", `{"properties": {"id": {"type": "string", "pattern": "(["}}}`, `at "/properties/id/pattern": '([' is not valid regex`},
		{"external ref", `{"properties": {"a": {"$ref": "other.json#/x"}}}`, `at "/properties/a/$ref": $ref "other.json#/x" only references inside the schema file are supported`},
		{"remote ref", `{"items": {"$ref": "https://example.com/s.json"}}`, `at "/items/$ref": $ref "https://example.com/s.json" only references inside the schema file`},
		{"dangling pointer", `{"properties": {"a": {"$ref": "#/$defs/missing"}}, "$defs": {}}`, `at "/properties/a/$ref": $ref "#/$defs/missing" points to nothing in the schema`},
		{"dangling anchor", `{"items": {"$ref": "#nope"}}`, `at "/items/$ref": $ref "#nope" names an anchor the schema does not define`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("s.json", []byte(tt.doc))
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *SchemaError", err, err)
			}
			if se.File != "s.json" || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %q\nwant containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "file://") {
				t.Fatalf("err names the internal URL: %q", err)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "v.json")
	doc := `{"title": "CI verdict", "type": "object"}`
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	// of the file's bytes as written, not of the compacted document
	if sum := sha256.Sum256([]byte(doc)); s.SHA256() != hex.EncodeToString(sum[:]) {
		t.Fatalf("SHA256 = %q", s.SHA256())
	}
	if s.File() != p || string(s.JSON()) != `{"title":"CI verdict","type":"object"}` || s.Name() != "CI_verdict" {
		t.Fatalf("File %q JSON %s Name %q", s.File(), s.JSON(), s.Name())
	}
	if string(s.ResponseSchema()) != string(s.JSON()) {
		t.Fatalf("ResponseSchema %s", s.ResponseSchema())
	}
	_, err = Load(filepath.Join(dir, "missing.json"))
	if err == nil || err.Error() != "output schema "+filepath.Join(dir, "missing.json")+": no such file or directory" {
		t.Fatalf("missing file: %v", err)
	}
	if _, err = Load(dir); err == nil || !strings.HasSuffix(err.Error(), ": not a regular file") {
		t.Fatalf("directory: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"description": "`+strings.Repeat("x", MaxFileBytes)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err = Load(big); err == nil || !strings.HasSuffix(err.Error(), ": larger than 1048576 bytes") {
		t.Fatalf("big file: %v", err)
	}
}

func TestDrafts(t *testing.T) {
	for _, d := range []string{"", `"$schema": "https://json-schema.org/draft/2020-12/schema",`,
		`"$schema": "http://json-schema.org/draft-07/schema#",`, `"$schema": "http://json-schema.org/draft-07/schema",`} {
		s := mustCompile(t, `{`+d+`"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}`)
		if _, err := s.Check(`{"n": 1}`); err != nil {
			t.Errorf("%s: valid answer rejected: %v", d, err)
		}
		if _, err := s.Check(`{"n": 1.5}`); err == nil {
			t.Errorf("%s: invalid answer accepted", d)
		}
	}
	// draft-07 semantics, not 2020-12: items as an array is a tuple.
	s := mustCompile(t, `{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}`)
	if _, err := s.Check(`["a", "b"]`); err == nil {
		t.Error("draft-07 additionalItems ignored")
	}
}

func TestNameAndStrict(t *testing.T) {
	tests := []struct {
		doc, file, name string
		strict          bool
	}{
		{`{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false}`, "x.json", "x", true},
		{`{"title": "Review / verdict!", "type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string", "pattern": "^x"}}, "required": ["b"], "additionalProperties": false}}}, "required": ["a"], "additionalProperties": false}`, "x.json", "Review_verdict", true},
		{`{"type": "object", "properties": {"ok": {"type": "boolean"}}, "additionalProperties": false}`, "x.json", "x", false},                                  // not all required
		{`{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}`, "x.json", "x", false},                                             // open object
		{`{"type": "object", "properties": {"s": {"type": "string", "minLength": 1}}, "required": ["s"], "additionalProperties": false}`, "x.json", "x", false}, // unsupported keyword
		{`{"type": "array", "items": {"type": "string"}}`, "my schema.v2.json", "my_schema_v2", false},                                                          // root not an object
		{`{"title": "!!!", "type": "object"}`, "---.json", "---", false},
		{`{"type": "object"}`, "ci/review.schema.json", "review", false},
		{`{"title": "` + strings.Repeat("a", 70) + `"}`, "x.json", strings.Repeat("a", 64), false},
	}
	for _, tt := range tests {
		s, err := Compile(tt.file, []byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != tt.name || s.Strict() != tt.strict {
			t.Errorf("%s: name %q strict %v, want %q %v", tt.doc, s.Name(), s.Strict(), tt.name, tt.strict)
		}
	}
}

func TestResponseSchemaDropsRootSchemaKeyword(t *testing.T) {
	s := mustCompile(t, `{"title": "t", "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
	  "properties": {"$schema": {"const": {"$schema": "kept: not the root"}}}}`)
	want := `{"title":"t","type":"object","properties":{"$schema":{"const":{"$schema":"kept: not the root"}}}}`
	if got := string(s.ResponseSchema()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if !strings.Contains(string(s.JSON()), `"$schema":"https://json-schema.org/draft/2020-12/schema"`) {
		t.Fatalf("JSON lost $schema: %s", s.JSON())
	}
}

package outschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const verdictSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "verdict",
  "type": "object",
  "required": ["verdict", "findings"],
  "additionalProperties": false,
  "properties": {
    "verdict": {"enum": ["pass", "fail"]},
    "findings": {"type": "array", "items": {"$ref": "#/$defs/finding"}},
    "score": {"type": "number", "minimum": 0, "maximum": 1},
    "at": {"type": "string", "format": "date-time"}
  },
  "$defs": {
    "finding": {"type": "object", "required": ["file", "line"], "properties": {
      "file": {"type": "string", "minLength": 1}, "line": {"type": "integer", "minimum": 1}}}
  }
}`

func TestCheck(t *testing.T) {
	s := mustCompile(t, verdictSchema)
	tests := []struct {
		name, answer, value string
		want                []Violation
	}{
		{name: "valid", answer: `{"verdict": "pass", "findings": []}`, value: `{"verdict":"pass","findings":[]}`},
		{name: "valid fenced", answer: "```json\n{\"findings\": [{\"file\": \"a.go\", \"line\": 3}], \"verdict\": \"fail\"}\n```",
			value: `{"findings":[{"file":"a.go","line":3}],"verdict":"fail"}`},
		{name: "missing and wrong", answer: `{"verdict": "maybe", "findings": [{"file": "", "line": 0}, {"line": "7"}]}`, want: []Violation{
			{"/findings/0/file", "minLength: got 0, want 1"},
			{"/findings/0/line", "minimum: got 0, want 1"},
			{"/findings/1", "missing property 'file'"},
			{"/findings/1/line", "got string, want integer"},
			{"/verdict", "value must be one of 'pass', 'fail'"},
		}},
		{name: "root", answer: `[]`, want: []Violation{{"", "got array, want object"}}},
		{name: "extra property", answer: `{"verdict": "pass", "findings": [], "note": "x"}`, want: []Violation{{"", "additional property 'note' not allowed"}}},
		{name: "big integer is an integer", answer: `{"verdict": "pass", "findings": [{"file": "a", "line": 100000000000000000000000}]}`, value: `{"verdict":"pass","findings":[{"file":"a","line":100000000000000000000000}]}`},
		{name: "number beyond maximum by a hair", answer: `{"verdict": "pass", "findings": [], "score": 1.0000000000000000001}`, want: []Violation{{"/score", "maximum: got 1.0000000000000000001, want 1"}}}, // compared exactly
		{name: "all required missing", answer: `{}`, want: []Violation{{"", "missing properties 'verdict', 'findings'"}}},
		{name: "format is not asserted", answer: `{"verdict": "pass", "findings": [], "at": "yesterday"}`, value: `{"verdict":"pass","findings":[],"at":"yesterday"}`},
		{name: "odd key is escaped and kept on one line", answer: `{"verdict": "pass", "findings": [], "a/b~\n": 1}`, want: []Violation{{"", `additional property 'a/b~\n' not allowed`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := s.Check(tt.answer)
			if tt.want == nil {
				if err != nil || string(v) != tt.value {
					t.Fatalf("Check = %s, %v; want %s", v, err, tt.value)
				}
				return
			}
			var m *MismatchError
			if !errors.As(err, &m) || v != nil {
				t.Fatalf("Check = %s, %v; want a mismatch", v, err)
			}
			if diff := cmp.Diff(tt.want, m.Violations); diff != "" {
				t.Fatalf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestViolationPointerEscaped(t *testing.T) {
	s := mustCompile(t, `{"properties": {"a/b": {"type": "object", "properties": {"c~d": {"type": "integer"}}}}}`)
	_, err := s.Check(`{"a/b": {"c~d": "x"}}`)
	var m *MismatchError
	if !errors.As(err, &m) || len(m.Violations) != 1 || m.Violations[0].Pointer != "/a~1b/c~0d" {
		t.Fatalf("err = %v", err)
	}
	if got := m.Violations[0].String(); got != `"/a~1b/c~0d": got string, want integer` {
		t.Fatalf("String = %q", got)
	}
}

func TestMismatchError(t *testing.T) {
	m := &MismatchError{Syntax: "the answer is empty"}
	if m.Error() != "final answer does not match the output schema: the answer is empty" {
		t.Fatalf("%q", m.Error())
	}
	m = &MismatchError{}
	for i := range 5 {
		m.Violations = append(m.Violations, Violation{fmt.Sprintf("/%d", i), "bad"})
	}
	want := `final answer does not match the output schema: "/0": bad; "/1": bad; "/2": bad; (and 2 more)`
	if m.Error() != want {
		t.Fatalf("got  %q\nwant %q", m.Error(), want)
	}
	m.Violations = m.Violations[:1]
	if m.Error() != `final answer does not match the output schema: "/0": bad` {
		t.Fatalf("%q", m.Error())
	}
}

func TestViolationsBounded(t *testing.T) {
	s := mustCompile(t, `{"additionalProperties": false}`)
	long := strings.Repeat("k", 1000)
	_, err := s.Check(`{"` + long + `": {"` + long + `": 1}}`)
	var m *MismatchError
	if !errors.As(err, &m) {
		t.Fatal(err)
	}
	for _, v := range m.Violations {
		if n := len([]rune(v.Message)); n > maxMessageRunes+1 {
			t.Fatalf("message of %d runes", n)
		}
	}
	s = mustCompile(t, `{"additionalProperties": {"additionalProperties": {"type": "string"}}}`)
	_, err = s.Check(`{"` + long + `": {"` + long + `": 1}}`)
	if !errors.As(err, &m) || len([]rune(m.Violations[0].Pointer)) != maxPointerRunes+1 ||
		!strings.HasSuffix(m.Violations[0].Pointer, "…") {
		t.Fatalf("pointer not capped: %v", err)
	}
}

package outschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestReAskMessage(t *testing.T) {
	got := ReAsk(&MismatchError{Violations: []Violation{{"/verdict", "value must be one of 'pass', 'fail'"}, {"", "missing property 'findings'"}}})
	want := `Your final answer does not match the required JSON Schema (2 errors, as JSON pointer: message):
- "/verdict": value must be one of 'pass', 'fail'
- "": missing property 'findings'
Reply again with the complete corrected final answer: one JSON value matching the schema, and nothing else.`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	got = ReAsk(&MismatchError{Syntax: "the answer is not one JSON value: invalid character 'T' looking for beginning of value at line 1, column 1"})
	want = `Your final answer was rejected: the answer is not one JSON value: invalid character 'T' looking for beginning of value at line 1, column 1.
Reply again with the complete corrected final answer: one JSON value matching the schema, and nothing else.`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestReAskCap(t *testing.T) {
	m := &MismatchError{}
	for i := range ReAskErrors + 7 {
		m.Violations = append(m.Violations, Violation{fmt.Sprintf("/items/%02d", i), "got string, want integer"})
	}
	got := ReAsk(m)
	lines := strings.Split(got, "\n")
	// heading, ReAskErrors entries, the "more" line, the instruction
	if len(lines) != ReAskErrors+3 {
		t.Fatalf("%d lines:\n%s", len(lines), got)
	}
	if !strings.Contains(lines[0], "(17 errors,") || lines[ReAskErrors] != `- "/items/09": got string, want integer` ||
		lines[ReAskErrors+1] != "- and 7 more" {
		t.Fatalf("cap not applied:\n%s", got)
	}
	m.Violations = m.Violations[:ReAskErrors]
	if strings.Contains(ReAsk(m), "more") {
		t.Fatal("a list at the cap says there are more")
	}
	// Every entry is one line even when the model's keys hold newlines.
	m = &MismatchError{Violations: []Violation{{"/a\nb", "x\ny"}}}
	if strings.Count(ReAsk(m), "\n") != 2 {
		t.Fatalf("entry broke the line:\n%s", ReAsk(m))
	}
}

func TestGuardRetriesCapped(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "required": ["ok"]}`)
	g := NewGuard(s, 2)
	for i := 1; i <= 2; i++ {
		msg, err := g.Check("not json")
		if err != nil || !strings.HasPrefix(msg, "Your final answer was rejected") || g.Retries() != i {
			t.Fatalf("attempt %d: %q, %v, retries %d", i, msg, err, g.Retries())
		}
	}
	msg, err := g.Check(`{}`)
	var m *MismatchError
	if msg != "" || !errors.As(err, &m) || g.Retries() != 2 || g.Value() != nil {
		t.Fatalf("after the cap: %q, %v, retries %d", msg, err, g.Retries())
	}
	if err.Error() != `final answer does not match the output schema: "": missing property 'ok'` {
		t.Fatalf("%q", err)
	}
}

func TestGuardValidAfterReAsk(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "required": ["ok"]}`)
	g := NewGuard(s, 1)
	if msg, err := g.Check(`{"ok": 1`); msg == "" || err != nil {
		t.Fatalf("%q, %v", msg, err)
	}
	if msg, err := g.Check(` {"ok": true} `); msg != "" || err != nil || string(g.Value()) != `{"ok":true}` || g.Retries() != 1 {
		t.Fatalf("%q, %v, %s, %d", msg, err, g.Value(), g.Retries())
	}
	if g.Schema() != s {
		t.Fatal("Schema")
	}
	if err := g.Last(`{"nope": 1}`); err == nil || string(g.Value()) != `{"ok":true}` {
		t.Fatalf("Last accepted a mismatch or dropped the valid value: %v, %s", err, g.Value())
	}
	if err := g.Last("```json\n{\"ok\": 2}\n```"); err != nil || string(g.Value()) != `{"ok":2}` || g.Retries() != 1 {
		t.Fatalf("Last: %v, %s, %d", err, g.Value(), g.Retries())
	}
}

func TestGuardNoRetries(t *testing.T) {
	g := NewGuard(mustCompile(t, `{"type": "integer"}`), -1)
	if msg, err := g.Check(`"x"`); msg != "" || err == nil {
		t.Fatalf("%q, %v", msg, err)
	}
}

func TestInstruction(t *testing.T) {
	s := mustCompile(t, "{\n  \"type\": \"integer\"\n}")
	in := s.Instruction()
	if !strings.HasSuffix(in, "\nJSON Schema of the final answer:\n{\"type\":\"integer\"}") || !strings.Contains(in, "exactly one JSON value") {
		t.Fatalf("%q", in)
	}
}

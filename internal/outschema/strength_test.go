package outschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests close survivors of mutation testing (scripts/mutate.sh and
// scripts/hand-mutate.sh).

// A schema file of exactly MaxFileBytes loads; one byte more is refused.
func TestSchemaFileCap(t *testing.T) {
	dir := t.TempDir()
	head := `{"type":"object","description":"`
	tail := `"}`
	for _, tc := range []struct {
		size int
		ok   bool
	}{{MaxFileBytes, true}, {MaxFileBytes + 1, false}} {
		p := filepath.Join(dir, "s.json")
		body := head + strings.Repeat("a", tc.size-len(head)-len(tail)) + tail
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		if tc.ok != (err == nil) {
			t.Errorf("a %d-byte schema: %v", tc.size, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes")) {
			t.Errorf("a %d-byte schema: %v, want the size named", tc.size, err)
		}
	}
}

// Nesting is bounded for objects as for arrays: maxDepth levels parse,
// one more is refused.
func TestNestingBoundForObjects(t *testing.T) {
	nest := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	if _, _, err := ParseAnswer(nest(maxDepth)); err != nil {
		t.Fatalf("%d nested objects: %v", maxDepth, err)
	}
	_, _, err := ParseAnswer(nest(maxDepth + 1))
	if err == nil || !strings.Contains(err.Error(), "nested deeper than 256 levels") {
		t.Fatalf("%d nested objects: %v", maxDepth+1, err)
	}
	mixed := strings.Repeat(`[{"a":`, maxDepth/2+1) + "1" + strings.Repeat("}]", maxDepth/2+1)
	if _, _, err := ParseAnswer(mixed); err == nil {
		t.Fatalf("%d levels of arrays and objects parsed", maxDepth+2)
	}
}

// A syntax error names the line and column of the bad character.
func TestSyntaxErrorPosition(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1 x}`: "at line 1, column 8", "[1,\n 2 x]": "at line 2, column 4", `{"a" 1}`: "at line 1, column 6",
		`[1 2]`: "at line 1, column 4", `x`: "at line 1, column 1", `{"a":1}}`: "at line 1, column 8",
		`[x]`: "at line 1, column 2", `"\x01"`: "at line 1, column 3", `[1,]`: "at line 1, column 4",
		`{"a":1,}`: "at line 1, column 8", `{"a":"b"x}`: "at line 1, column 9", `tru`: "at line 1, column 4",
		`{"a":1,x}`: "at line 1, column 8",
	} {
		if _, _, err := ParseAnswer(in); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("ParseAnswer(%q) = %v, want it to end %q", in, err, want)
		}
	}
}

// A fenced answer needs a newline after its opening fence.
func TestUnfenceWithoutNewline(t *testing.T) {
	if _, _, err := ParseAnswer("```json {\"a\":1}```"); err == nil || !strings.Contains(err.Error(), "not closed") {
		t.Fatalf("a one-line fence: %v", err)
	}
}

// Strict mode needs every property required by name: a required list of
// the right length naming something else, or a non-string, is not strict.
func TestStrictNeedsEveryPropertyRequired(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`: true,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"],"additionalProperties":false}`: false,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`:                              false,
		`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`:                  false,
	} {
		s, err := Compile("s.json", []byte(doc))
		if err != nil {
			t.Fatalf("Compile(%s): %v", doc, err)
		}
		if s.Strict() != want {
			t.Errorf("Strict(%s) = %v, want %v", doc, s.Strict(), want)
		}
	}
}

// A schema's name is cut to 64 characters.
func TestNameCap(t *testing.T) {
	for n, want := range map[int]int{64: 64, 65: 64, 63: 63} {
		s, err := Compile("s.json", []byte(`{"type":"object","title":"`+strings.Repeat("n", n)+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Name()) != want {
			t.Errorf("a %d-character title gives a %d-character name, want %d", n, len(s.Name()), want)
		}
	}
}

// Violation pointers and messages are one line and bounded, whatever the
// answer's keys hold (the cap is max runes and an ellipsis).
func TestViolationTextBounded(t *testing.T) {
	s, err := Compile("s.json", []byte(`{"type":"object","additionalProperties":{"type":"integer"}}`))
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("k", 500) + "\n\x1b[31m"
	enc, _ := json.Marshal(map[string]string{key: "x"})
	_, err = s.Check(string(enc))
	me, ok := err.(*MismatchError)
	if !ok || len(me.Violations) != 1 {
		t.Fatalf("Check = %v", err)
	}
	v := me.Violations[0]
	if strings.ContainsAny(v.Pointer+v.Message, "\n\x1b") || len([]rune(v.Pointer)) > maxPointerRunes+1 || len([]rune(v.Message)) > maxMessageRunes+1 {
		t.Fatalf("violation not made one bounded line: %q %q", v.Pointer, v.Message)
	}
}

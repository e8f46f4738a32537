package outschema

import (
	"encoding/json"
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

package outschema

import (
	"strings"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		name, in, want, wantErr string
	}{
		{"object", `{"a": 1, "b": [true, null]}`, `{"a":1,"b":[true,null]}`, ""},
		{"key order kept", "{\"z\":1,\n \"a\":2}", `{"z":1,"a":2}`, ""},
		{"scalar", "  42  ", "42", ""},
		{"string", `"done"`, `"done"`, ""},
		{"big number kept exact", `123456789012345678901234567890`, `123456789012345678901234567890`, ""},
		{"fenced json", "```json\n{\"ok\": true}\n```", `{"ok":true}`, ""},
		{"fenced JSON upper case, spaces around", "\n  ```JSON \n{\"ok\": true}\n```\n", `{"ok":true}`, ""},
		{"bare fence", "```\n[1, 2]\n```", `[1,2]`, ""},
		{"fence inside a string of a fenced value", "```json\n{\"md\": \"```go\\nx\\n```\"}\n```", "{\"md\":\"```go\\nx\\n```\"}", ""},
		{"fence inside a string of a bare value", "{\"md\": \"```\"}", "{\"md\":\"```\"}", ""},
		{"html not escaped", `{"a":"<b>&"}`, `{"a":"<b>&"}`, ""},
		{"empty", " \n ", "", "the answer is empty"},
		{"prose", "The answer is 4.", "", "not one JSON value: invalid character 'T' looking for beginning of value at line 1, column 1"},
		{"prose before fence", "Here it is:\n```json\n{}\n```", "", "text outside its fenced block"},
		{"prose after fence", "```json\n{}\n```\nHope this helps!", "", "text outside its fenced block"},
		{"two fenced blocks", "```json\n{}\n```\n```json\n{}\n```", "", "not one JSON value"},
		{"fence of another language", "```yaml\na: 1\n```", "", `marked "yaml", not json`},
		{"unclosed fence", "```json\n{}", "", "not closed"},
		{"fence on one line", "```{}```", "", "not closed"},
		{"two values", `{} {}`, "", "more than one JSON value, or text after the value at line 1, column 4"},
		{"trailing text", `{"a":1} ok`, "", "more than one JSON value"},
		{"duplicate key", `{"verdict":"fail","verdict":"pass"}`, "", `duplicate key "verdict" at line 1, column 18`},
		{"nested duplicate key", `{"a":[{"x":1,"x":2}]}`, "", `duplicate key "x"`},
		{"truncated", `{"a": [1, 2`, "", "unexpected end of JSON"},
		{"bad token on line 2", "{\n  \"a\": tru\n}", "", "line 2"},
		{"invalid UTF-8", "\"\xff\"", "", "not valid UTF-8"},
		{"too deep", strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), "", "nested deeper than 256 levels"},
		{"deep enough", strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth), strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, v, err := ParseAnswer(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				if raw != nil || v != nil {
					t.Fatalf("value returned with an error: %s %v", raw, v)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != tt.want {
				t.Fatalf("raw = %s, want %s", raw, tt.want)
			}
		})
	}
}

func TestPosition(t *testing.T) {
	data := []byte("ab\ncé\nx")
	for _, tt := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {6, 2, 3}, {7, 3, 1}, {99, 3, 2}, {-1, 1, 1}} {
		if l, c := position(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("position(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

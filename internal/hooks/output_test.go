package hooks

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, out string
		isJSON    bool
		err       string
		check     func(answer) bool
	}{
		{name: "empty", out: ""},
		{name: "plain text", out: "hello {not json}"},
		{name: "deny", out: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, isJSON: true,
			check: func(a answer) bool { return permission(&a) == "deny" && a.Specific.PermissionDecisionReason == "no" }},
		{name: "defer is ask", out: `{"hookSpecificOutput":{"permissionDecision":"defer"}}`, isJSON: true,
			check: func(a answer) bool { return permission(&a) == "ask" }},
		{name: "old block", out: `{"decision":"block","reason":"r"}`, isJSON: true,
			check: func(a answer) bool { return permission(&a) == "deny" && a.Reason == "r" }},
		{name: "old approve", out: `{"decision":"approve"}`, isJSON: true, check: func(a answer) bool { return permission(&a) == "allow" }},
		{name: "continue false", out: ` {"continue": false, "stopReason": "enough"}` + "\n", isJSON: true,
			check: func(a answer) bool { return a.Continue != nil && !*a.Continue && a.StopReason == "enough" }},
		{name: "updated input", out: `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, isJSON: true,
			check: func(a answer) bool { return string(a.Specific.UpdatedInput) == `{"command":"ls"}` }},
		{name: "null input", out: `{"hookSpecificOutput":{"updatedInput":null}}`, isJSON: true,
			check: func(a answer) bool { return a.Specific.UpdatedInput == nil }},
		{name: "unknown fields ignored", out: `{"whatever":1,"hookSpecificOutput":{"x":2}}`, isJSON: true},
		{name: "broken", out: `{"decision":`, isJSON: true, err: "does not parse"},
		{name: "trailing", out: `{} {}`, isJSON: true, err: "more after"},
		{name: "wrong type", out: `{"continue":"no"}`, isJSON: true, err: "does not parse"},
		{name: "bad decision", out: `{"decision":"maybe"}`, isJSON: true, err: "is not"},
		{name: "bad permission", out: `{"hookSpecificOutput":{"permissionDecision":"yes"}}`, isJSON: true, err: "is not allow"},
		{name: "input not object", out: `{"hookSpecificOutput":{"updatedInput":"rm -rf /"}}`, isJSON: true, err: "not an object"},
		{name: "duplicate", out: `{"decision":"approve","decision":"block"}`, isJSON: true, err: "twice"},
		{name: "bad utf8", out: "{\"reason\":\"\xff\"}", isJSON: true, err: "UTF-8"},
	} {
		a, isJSON, err := parseAnswer([]byte(tc.out))
		if isJSON != tc.isJSON {
			t.Errorf("%s: isJSON = %v", tc.name, isJSON)
		}
		if (err != nil) != (tc.err != "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
		}
		if tc.check != nil && !tc.check(a) {
			t.Errorf("%s: answer = %+v", tc.name, a)
		}
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	in := "ok\x1b[2J\x1b]0;owned\x07 line\r\n\u202egnp.exe\u2028next\x00\tend\xff"
	got := clean(in, 100)
	if strings.ContainsAny(got, "\x1b\x07\r\x00\u202e\u2028") || !utf8.ValidString(got) {
		t.Errorf("clean = %q", got)
	}
	if !strings.Contains(got, "\n") || !strings.Contains(got, "\t") {
		t.Errorf("clean dropped newline or tab: %q", got)
	}
	long := clean(strings.Repeat("é", 100), 11)
	if !strings.HasPrefix(long, "ééééé […") || !strings.Contains(long, "190 more bytes cut") {
		t.Errorf("capped = %q", long)
	}
	if oneLine("a\n b\tc", 10) != "a b c" {
		t.Errorf("oneLine = %q", oneLine("a\n b\tc", 10))
	}
}

// FuzzParseAnswer: a hook's stdout is untrusted bytes. Parsing never
// panics, and whatever it accepts carries only the decisions the format
// defines.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{}`, `{"decision":"block","reason":"x"}`, `{"continue":false}`,
		`{"hookSpecificOutput":{"permissionDecision":"deny","updatedInput":{"a":1},"additionalContext":"c"}}`,
		"plain", `{"a":`, `{"hookSpecificOutput":{"permissionDecision":"defer"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		a, isJSON, err := parseAnswer(out)
		if err != nil || !isJSON {
			return
		}
		switch a.Decision {
		case "", "block", "approve":
		default:
			t.Fatalf("decision %q accepted", a.Decision)
		}
		switch permission(&a) {
		case "", "allow", "deny", "ask":
		default:
			t.Fatalf("permission %q accepted", permission(&a))
		}
		if s := a.Specific; s != nil && s.UpdatedInput != nil && s.UpdatedInput[0] != '{' {
			t.Fatalf("updatedInput %s accepted", s.UpdatedInput)
		}
		c := clean(a.Reason, 64)
		if !utf8.ValidString(c) || strings.ContainsAny(c, "\x1b\r\x00") {
			t.Fatalf("clean(%q) = %q", a.Reason, c)
		}
	})
}

// FuzzParse: a project file's hooks value is the repository's bytes.
func FuzzParse(f *testing.F) {
	f.Add([]byte(claudeBlock))
	f.Add([]byte(`{"Stop":[{"hooks":[{"type":"command","command":"x","timeout":1e308}]}]}`))
	f.Add([]byte(`{"PreToolUse":[{"matcher":"(","hooks":[]}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, _, err := Parse(raw)
		if err != nil {
			return
		}
		for e, groups := range c {
			if !known(e) {
				t.Fatalf("event %q kept", e)
			}
			for _, g := range groups {
				if g.m == nil {
					t.Fatal("a group without a compiled matcher")
				}
				for _, h := range g.Hooks {
					if h.Timeout <= 0 || h.Timeout > MaxTimeout || (h.Type != TypeCommand && h.Type != TypeHTTP) {
						t.Fatalf("handler %+v", h)
					}
				}
			}
		}
	})
}

package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One result may carry exactly MaxRefs refs; one more is malformed.
func TestProcessRefLimitBoundary(t *testing.T) {
	root := t.TempDir()
	refs := make([]Ref, MaxRefs+1)
	for i := range refs {
		name := fmt.Sprint("f", i)
		must(t, os.WriteFile(filepath.Join(root, name), []byte(name), 0o600))
		refs[i] = okRef("file://" + filepath.Join(root, name))
		refs[i].ID = name
	}
	p, err := Process([]string{envelopeJSON(t, "at the limit", refs[:MaxRefs]...)}, ProcessOptions{Roots: []string{root}})
	if err != nil || p.ArtifactCount != MaxRefs {
		t.Fatalf("%d refs: %v (count %v)", MaxRefs, err, p)
	}
	_, err = Process([]string{envelopeJSON(t, "one over", refs...)}, ProcessOptions{Roots: []string{root}})
	if err == nil || !strings.Contains(err.Error(), "65 artifact refs exceed the limit of 64") {
		t.Fatalf("%d refs: %v", MaxRefs+1, err)
	}
}

func TestFormatMetadataLineShortHash(t *testing.T) {
	if got := FormatMetadataLine("r", "text/plain", 3, "0123456789ab", ""); got != `- artifact "r" (text/plain, 3 bytes, sha256 0123456789ab…)` {
		t.Errorf("12-hex hash: %q", got)
	}
	if got := FormatMetadataLine("r", "text/plain", 3, "0123456789a", ""); got != `- artifact "r" (text/plain, 3 bytes)` {
		t.Errorf("11-hex hash: %q", got)
	}
}

func TestRenderErrorLimits(t *testing.T) {
	text := strings.Repeat("e", 100)
	items := []Content{{Type: "text", Text: text}}
	tests := []struct {
		maxChars int
		whole    bool
	}{
		{0, true},    // 0 = the default limit
		{-1, true},   // so is a negative one
		{100, true},  // exactly at the limit
		{99, false},  // one over: cut, with the notice
		{1000, true}, // well within
	}
	for _, tt := range tests {
		out := RenderError(items, ResultOptions{Server: "s", Tool: "t", MaxChars: tt.maxChars})
		if got := strings.Contains(out, "\n"+text+"\n"); got != tt.whole {
			t.Errorf("max_result_chars %d: whole text %v, want %v: %q", tt.maxChars, got, tt.whole, out)
		}
		if !tt.whole && !strings.Contains(out, "produced 100 chars, exceeding the configured max_result_chars=99") {
			t.Errorf("max_result_chars %d: no truncation notice: %q", tt.maxChars, out)
		}
	}
}

// Broken JSON counts as a broken envelope when its valid prefix sets the
// top-level schema, even with the name escaped so no substring check sees it.
func TestStartsAsEnvelope(t *testing.T) {
	const esc = `"odek\u002etool-result/v1"` // the schema name, escaped
	tests := []struct {
		body string
		want bool
	}{
		{`{"schema":` + esc + `,"text":`, true},
		{`{"a":1,"schema":` + esc + `,`, true},
		{`{"a":{"b":2},"schema":` + esc, true},      // after a nested object ended
		{`{"a":[1,{"c":3}],"schema":` + esc, true},  // after a nested array ended
		{`{"inner":{"schema":` + esc + `},`, false}, // a nested schema is not the envelope's
		{`{"schema":"other/v1",`, false},
		{`{"s":` + esc + `,`, false},
		{`{"text":"schema","x":` + esc + `,`, false}, // "schema" as a value, not a key
		{`["schema",` + esc + `,`, false},
		{`[{"schema":` + esc + `},`, false},
		{`{"schema":"odek.tool-result/v1"`, true}, // written plainly
		{`{"schema":"odek.tool-result\/v1"`, true},
		{`not json at all`, false},
	}
	for _, tt := range tests {
		if got := startsAsEnvelope(tt.body); got != tt.want {
			t.Errorf("startsAsEnvelope(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

func TestCleanTextLeadingCRLF(t *testing.T) {
	for in, want := range map[string]string{"\r\nx": "\nx", "\rx": "\nx", "x\r\n": "x\n", "\r\n": "\n"} {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
}

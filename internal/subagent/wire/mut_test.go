package wire

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// Tests that close survivors of mutation testing (scripts/mutate.sh): the
// bounds of what a child's transcript and stdout may carry to its parent.

func TestFromHistoryBounds(t *testing.T) {
	var r Result
	FromHistory(&r, []llm.Message{{Role: llm.RoleAssistant, Content: "thinking aloud"}}, "final")
	if r.Summary != "final" {
		t.Errorf("summary = %q, want the answer over an assistant message", r.Summary)
	}
	for n, truncated := range map[int]bool{MaxSummaryRunes: false, MaxSummaryRunes + 1: true} {
		var r Result
		FromHistory(&r, nil, strings.Repeat("é", n))
		if r.SummaryTruncated != truncated || (truncated && r.SummaryRunes != n) {
			t.Errorf("%d runes: truncated = %v (%d), want %v", n, r.SummaryTruncated, r.SummaryRunes, truncated)
		}
	}

	var lines []string
	for i := range maxReportedDenials + 1 {
		lines = append(lines, fmt.Sprintf("%s%d (risk: destructive)", denialMarker, i))
	}
	for i := range maxReportedFiles + 1 {
		lines = append(lines, fmt.Sprintf("wrote f%d (3 bytes)", i))
	}
	lines = append(lines, "wrote  (odd)", "created : x", "patched g.go: 2 hunks")
	r = Result{}
	FromHistory(&r, []llm.Message{{Role: llm.RoleTool, Name: "shell", Content: strings.Join(lines, "\n")}}, "a")
	if r.DenialsTotal != maxReportedDenials+1 || len(r.Denials) != maxReportedDenials {
		t.Errorf("denials: total %d, kept %d; want %d, %d", r.DenialsTotal, len(r.Denials), maxReportedDenials+1, maxReportedDenials)
	}
	if d := r.Denials[0]; d.Class != "destructive" || d.Tool != "shell" || !strings.HasPrefix(d.Reason, denialMarker) {
		t.Errorf("a denial at the start of a line: %+v", d)
	}
	if len(r.FilesChanged) != maxReportedFiles {
		t.Errorf("%d files kept, want %d", len(r.FilesChanged), maxReportedFiles)
	}
	var r2 Result
	FromHistory(&r2, []llm.Message{{Role: llm.RoleTool, Content: "wrote  (odd)\ncreated : x\npatched g.go: 2 hunks"}}, "a")
	if got := strings.Join(r2.FilesChanged, "|"); got != "(odd)|: x|g.go" {
		t.Errorf("files = %q, want %q", got, "(odd)|: x|g.go")
	}
	if got := riskOf("(risk: blocked)"); got != "blocked" {
		t.Errorf("riskOf at index 0 = %q", got)
	}
}

// A line of exactly MaxLine bytes (and its newline) is read; one more byte
// is a flood. Raw output is kept to maxRawBytes, cut at a rune boundary.
func TestReadStreamLineAndRawBounds(t *testing.T) {
	lim := StreamLimits{MaxLine: 100}
	if _, err := ReadStream(strings.NewReader(strings.Repeat("x", 100)+"\n"), lim, nil); err != nil {
		t.Errorf("a line of exactly MaxLine: %v", err)
	}
	_, err := ReadStream(strings.NewReader(strings.Repeat("x", 101)+"\n"), lim, nil)
	var fe *FloodError
	if !errors.As(err, &fe) || fe.What != "line" || fe.Observed != 102 || fe.Limit != 100 {
		t.Errorf("a line over MaxLine: %v (%+v), want a line flood observing 102 bytes", err, fe)
	}
	// Exactly maxRawBytes of raw output is kept whole, without the marker.
	exact := strings.Repeat("r", maxRawBytes-1)
	s, err := ReadStream(strings.NewReader(exact+"\n"), StreamLimits{}, nil)
	if err != nil || s.Raw != exact {
		t.Errorf("raw of %d bytes: len %d, %v", len(exact), len(s.Raw), err)
	}
	s, err = ReadStream(strings.NewReader(strings.Repeat("r", maxRawBytes)), StreamLimits{}, nil)
	if err != nil || s.Raw != strings.Repeat("r", maxRawBytes) {
		t.Errorf("raw of exactly maxRawBytes: len %d, %v", len(s.Raw), err)
	}
	// A buffer of exactly maxRawBytes still takes the next line, so the cut shows.
	first := strings.Repeat("r", maxRawBytes-1) + "\n"
	s, err = ReadStream(strings.NewReader(first+"more\n"), StreamLimits{}, nil)
	if err != nil || !strings.HasSuffix(s.Raw, rawTruncatedMarker) {
		t.Errorf("raw past the cap does not end with the marker: ...%q, %v", s.Raw[max(0, len(s.Raw)-40):], err)
	}
	// The cut never splits a rune, and a run of continuation bytes does not
	// walk off the start.
	s, _ = ReadStream(strings.NewReader(strings.Repeat("a", maxRawBytes-1)+"é tail"), StreamLimits{}, nil)
	if want := strings.Repeat("a", maxRawBytes-1) + "\n" + rawTruncatedMarker; s.Raw != want {
		t.Errorf("rune cut: ...%q", s.Raw[max(0, len(s.Raw)-40):])
	}
	s, _ = ReadStream(strings.NewReader(strings.Repeat("\x80", maxRawBytes+5)), StreamLimits{}, nil)
	if s.Raw != "\n"+rawTruncatedMarker {
		t.Errorf("continuation bytes: ...%q", s.Raw[max(0, len(s.Raw)-40):])
	}
}

func TestParseTaskSizeBound(t *testing.T) {
	if _, err := ParseTask(make([]byte, MaxTaskFileBytes+1)); err == nil || !strings.Contains(err.Error(), "exceed the limit") {
		t.Errorf("an over-long task file: %v", err)
	}
	if _, err := ParseTask(append([]byte("{}"), make([]byte, MaxTaskFileBytes-2)...)); err != nil && strings.Contains(err.Error(), "exceed the limit") {
		t.Errorf("a task file of exactly the limit refused for its size: %v", err)
	}
}

func TestIsNameAndDepthBounds(t *testing.T) {
	for s, want := range map[string]bool{
		strings.Repeat("a", 128): true, strings.Repeat("a", 129): false, "a": true, "": false, ".a": false,
		"a.b_c-d": true, "a/b": false, "a b": false, "Z9": true, "a\x00": false,
		"z": true, "A": true, "Az": true, "0": true, "9": true, "`": false, "@": false, "[": false, "{": false,
	} {
		if IsName(s) != want {
			t.Errorf("IsName(%q) = %v, want %v", s, !want, want)
		}
	}
	for v, want := range map[string]int{"0": 0, "3": 3, " 2 ": 2, "-1": 0, "x": 0, "": 0} {
		if got := ParseDepth(v); got != want {
			t.Errorf("ParseDepth(%q) = %d, want %d", v, got, want)
		}
	}
}

func TestSandboxPathCountBound(t *testing.T) {
	paths := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("/p%d", i)
		}
		return out
	}
	ok := &TaskSandbox{Mode: "workspace-write", Workspace: "/w", Writable: paths(maxSandboxPaths)}
	if err := ok.validate(); err != nil {
		t.Errorf("%d writable paths: %v", maxSandboxPaths, err)
	}
	over := &TaskSandbox{Mode: "workspace-write", Workspace: "/w", Readable: paths(maxSandboxPaths + 1)}
	if err := over.validate(); err == nil || !strings.Contains(err.Error(), "exceed the limit") {
		t.Errorf("%d readable paths: %v", maxSandboxPaths+1, err)
	}
}

// What a child's tool output says about denials and changed files reaches
// the parent's model as one bounded line without control characters.
func TestFromHistorySanitises(t *testing.T) {
	long := strings.Repeat("z", 1000)
	content := denialMarker + "\x1b[2Jcleared\r" + long + " (risk: destructive)\n" + "wrote evil\x1b]0;title\x07" + long + "\n"
	var r Result
	FromHistory(&r, []llm.Message{{Role: llm.RoleTool, Name: "shell", Content: content}}, "a")
	if len(r.Denials) != 1 || len(r.FilesChanged) != 1 {
		t.Fatalf("denials %v, files %v", r.Denials, r.FilesChanged)
	}
	for what, s := range map[string]string{"denial": r.Denials[0].Reason, "file": r.FilesChanged[0]} {
		if strings.ContainsAny(s, "\x1b\r\n\x07") {
			t.Errorf("%s keeps control characters: %q", what, s)
		}
	}
	if n := len([]rune(r.Denials[0].Reason)); n > maxDenialRunes+1 { // +1: the "…"
		t.Errorf("denial reason is %d runes, over %d", n, maxDenialRunes)
	}
	if n := len([]rune(r.FilesChanged[0])); n > maxFileRunes+1 {
		t.Errorf("file name is %d runes, over %d", n, maxFileRunes)
	}
}

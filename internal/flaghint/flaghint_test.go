package flaghint

import (
	"strings"
	"testing"
)

// TestForeignFlags: the spellings issue 40 names, and the forms a flag is
// typed in, each get odek's spelling.
func TestForeignFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ arg, ours, tool string }{
		{"--output-format", "--output", "Claude Code"},
		{"--output-format=json", "--output", "Claude Code"},
		{"--max-turns", "--max-iter", "Claude Code"},
		{"--max-turns=5", "--max-iter", "goose"},
		{"-p", `odek run "<task>"`, "Claude Code"},
		{"-pfoo", `odek run "<task>"`, "Claude Code"},
		{"--json-schema", "--output-schema FILE", "Claude Code"},
		{"--dangerously-skip-permissions", "--full-auto", "Claude Code"},
		{"--yolo", "--full-auto", "Codex"},
		{"--ALLOWEDTOOLS", "--tool", "Claude Code"},
		{"-y", "--full-auto", "Gemini CLI"},
	} {
		h, ok := Flag(tc.arg)
		if !ok || h.Ours != tc.ours || !strings.Contains(h.Message(), tc.tool+"'s") {
			t.Errorf("Flag(%q) = %+v, %v; want %q from %s", tc.arg, h, ok, tc.ours, tc.tool)
		}
	}
	h, ok := Flag("--dangerously-skip-permissions")
	if !ok || !strings.Contains(h.Message(), "dangerous settings") || !strings.Contains(h.Message(), "--full-auto") {
		t.Errorf("--dangerously-skip-permissions: %q", h.Message())
	}
	if h, ok := Command("exec"); !ok || h.Message() != "exec is Codex's spelling; in odek: odek run" {
		t.Errorf("Command(exec) = %q, %v", h.Message(), ok)
	}
	for _, arg := range []string{"--model", "--output", "-c", "-C", "--", "-", "", "--nope", "run"} {
		if h, ok := Flag(arg); ok {
			t.Errorf("Flag(%q) = %+v, want none", arg, h)
		}
	}
}

// TestMessage: the line the error ends with.
func TestMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg, want string
	}{
		{"--max-turns", "--max-turns is Claude Code's and goose's spelling; odek's is --max-iter"},
		{"--output-format", "--output-format is Claude Code's and Gemini CLI's spelling; odek's is --output: text (the answer alone), json (one run report) or stream-json (events as they happen, then the report)"},
		{"--skip-git-repo-check", "--skip-git-repo-check is Codex's spelling: odek runs in any directory; leave it out"},
	} {
		h, _ := Flag(tc.arg)
		if got := h.Message(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.arg, got, tc.want)
		}
	}
}

// TestSuggest: another tool's flag gets its hint; a typo of one of the
// command's flags gets the nearest; anything else nothing.
func TestSuggest(t *testing.T) {
	t.Parallel()
	known := []string{"max-iter", "output", "output-schema", "model", "quiet"}
	for _, tc := range []struct{ arg, want string }{
		{"--max-turns", "--max-turns is Claude Code's and goose's spelling; odek's is --max-iter"},
		{"--max-itr", "did you mean --max-iter?"},
		{"--ouput=json", "did you mean --output?"},
		{"--modle", "did you mean --model?"},
		{"--frobnicate", ""},
		{"-x", ""},
	} {
		if got := Suggest(tc.arg, known); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.arg, got, tc.want)
		}
	}
}

// TestTable: each entry is spelled as a flag or command, named once, says
// who spells it so, and says what to do instead.
func TestTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, h := range flags {
		long := strings.HasPrefix(h.Theirs, "--") && len(h.Theirs) > 3
		short := len(h.Theirs) == 2 && h.Theirs[0] == '-' && h.Theirs[1] != '-'
		if !long && !short {
			t.Errorf("%q is not a flag", h.Theirs)
		}
	}
	for _, h := range All() {
		if seen[strings.ToLower(h.Theirs)] {
			t.Errorf("%q twice", h.Theirs)
		}
		seen[strings.ToLower(h.Theirs)] = true
		if len(h.Tools) == 0 || h.Ours == "" && h.Note == "" {
			t.Errorf("%q: no tool, or nothing to do instead", h.Theirs)
		}
	}
	for _, h := range commands {
		if strings.HasPrefix(h.Theirs, "-") {
			t.Errorf("command %q", h.Theirs)
		}
	}
}

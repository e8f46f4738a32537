package hooks

import (
	"encoding/json"
	"testing"
)

func TestMatcher(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		matcher string
		tool    string
		want    bool
	}{
		{"", "shell", true},
		{"*", "fs__read", true},
		{"Bash", "shell", true},
		{"shell", "shell", true},
		{"Bash", "write_file", false},
		{"Write|Edit", "write_file", true},
		{"Write|Edit", "patch", true},
		{"Write|Edit", "read_file", false},
		{"Write, Edit", "patch", true},
		{"Read", "read_file", true},
		{"Grep", "search_files", true},
		{"Task", "delegate_tasks", true},
		{"Agent", "delegate_tasks", true},
		{"mcp__github__.*", "github__create_issue", true},
		{"mcp__github__.*", "gitlab__create_issue", false},
		{"mcp__.*", "fs__read", true},
		{"mcp__.*", "shell", false},
		{"github__create_issue", "github__create_issue", true},
		{"mcp__github__create_issue", "github__create_issue", true},
		{"mcp__github", "github__create_issue", false}, // exact: Claude Code's rule too
		{"^Bash$", "shell", true},
		{"^Bash$", "BashOutput", false},
		{"Notebook.*", "shell", false},
		{"Bas", "shell", false},       // exact, not a prefix
		{".*file", "read_file", true}, // unanchored regex on odek's name
	} {
		m, err := compileMatcher(tc.matcher)
		if err != nil {
			t.Fatalf("%q: %v", tc.matcher, err)
		}
		if got := m.match(toolNames(tc.tool)...); got != tc.want {
			t.Errorf("matcher %q on %s = %v, want %v", tc.matcher, tc.tool, got, tc.want)
		}
	}
}

func TestClaudeInput(t *testing.T) {
	t.Parallel()
	in := json.RawMessage(`{"path":"a/b.go","old":"x","new":"y"}`)
	shown := claudeInput("patch", in, "/work")
	var m map[string]any
	if err := json.Unmarshal(shown, &m); err != nil {
		t.Fatal(err)
	}
	if m["file_path"] != "/work/a/b.go" || m["old_string"] != "x" || m["new_string"] != "y" || m["path"] != "a/b.go" {
		t.Errorf("shown = %s", shown)
	}
	// An answer that changes Claude Code's field wins; one that echoes it
	// unchanged and changes odek's keeps odek's.
	for _, tc := range []struct{ updated, want string }{
		{`{"path":"a/b.go","file_path":"/work/a/b.go","old_string":"x","new_string":"z","old":"x","new":"y"}`, `{"new":"z","old":"x","path":"a/b.go"}`},
		{`{"path":"c.go","file_path":"/work/a/b.go","old":"x","new":"y"}`, `{"new":"y","old":"x","path":"c.go"}`},
		{`{"file_path":"/tmp/evil","old":"x","new":"y"}`, `{"new":"y","old":"x","path":"/tmp/evil"}`},
	} {
		if got := odekInput("patch", shown, json.RawMessage(tc.updated)); string(got) != tc.want {
			t.Errorf("odekInput(%s) = %s, want %s", tc.updated, got, tc.want)
		}
	}
	if got := claudeInput("shell", json.RawMessage(`{"command":"ls"}`), "/w"); string(got) != `{"command":"ls"}` {
		t.Errorf("shell input changed: %s", got)
	}
	if claudeName("fs__read") != "mcp__fs__read" || claudeName("shell") != "Bash" || claudeName("artifact_read") != "" {
		t.Error("claudeName")
	}
}

package builtin

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPathToolSummaries: tool_call_started names the path a call works on
// and its class. search_files without a path searches ".", so that is its
// path, never its regular expression.
func TestPathToolSummaries(t *testing.T) {
	tools, _, _ := setup(t)
	for _, tc := range []struct {
		tool, args string
		want       map[string]any
	}{
		{"read_file", `{"path":"a.txt"}`, map[string]any{"path": "a.txt", "class": "safe"}},
		{"write_file", `{"path":"out/b.txt","content":""}`, map[string]any{"path": "out/b.txt", "class": "local_write"}},
		{"patch", `{"path":"c.go","old":"x","new":"y"}`, map[string]any{"path": "c.go", "class": "local_write"}},
		{"list_dir", `{}`, map[string]any{"path": ".", "class": "safe"}},
		{"glob", `{"pattern":"cmd/**/*.go"}`, map[string]any{"path": "cmd/**/*.go", "class": "safe"}},
		{"search_files", `{"pattern":"TODO","path":"internal"}`, map[string]any{"path": "internal", "class": "safe"}},
		{"search_files", `{"pattern":"/etc/passwd"}`, map[string]any{"path": ".", "class": "safe"}},
	} {
		got := tools[tc.tool].ArgsSummary(json.RawMessage(tc.args))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s %s: summary (-want +got):\n%s", tc.tool, tc.args, diff)
		}
	}
}

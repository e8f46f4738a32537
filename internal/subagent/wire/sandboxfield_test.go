package wire

import (
	"strings"
	"testing"
)

func TestTaskSandboxField(t *testing.T) {
	for _, c := range []struct{ sandbox, want string }{
		{`{"mode":"read-only","workspace":"/w","protected_paths":["/h/.ssh"]}`, ""},
		{`{"mode":"off"}`, ""},
		{`{"mode":"workspace-write","workspace":"/w","network":true,"writable_paths":["/c"]}`, ""},
		{`{"mode":"auto","workspace":"/w"}`, `sandbox.mode`},
		{`{"workspace":"/w"}`, `sandbox.mode`},
		{`{"mode":"read-only"}`, `sandbox.workspace`},
		{`{"mode":"read-only","workspace":"w"}`, `"w" is not an absolute path`},
		{`{"mode":"read-only","workspace":"/w","writable_paths":["rel"]}`, `sandbox.writable_paths`},
		{`{"mode":"read-only","workspace":"/w","protected_paths":[""]}`, `sandbox.protected_paths`},
		{`{"mode":"read-only","workspace":"/w","nope":1}`, ""}, // DECISION 29: ignored
	} {
		task, err := ParseTask([]byte(`{"goal":"g","sandbox":` + c.sandbox + `}`))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.sandbox, err)
		case c.want == "" && task.Sandbox == nil:
			t.Errorf("%s: sandbox dropped", c.sandbox)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error naming %q", c.sandbox, err, c.want)
		}
	}
}

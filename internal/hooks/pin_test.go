package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hook script in the workspace that changes during the run (the model's
// commands may write there) is not run: the event it guards is blocked,
// whatever on_error says, and the operator is told.
func TestChangedScriptNotRun(t *testing.T) {
	t.Parallel()
	var guard string
	g := newRig(t, `{"PreToolUse": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/hooks/guard.sh"}]}],
		"PostToolUse": [{"hooks": [{"type": "command", "command": "sh hooks/audit.sh --log=hooks/audit.sh"}]}]}`, "",
		func(o *Options) {
			guard = filepath.Join(o.Dir, "hooks", "guard.sh")
			if err := os.MkdirAll(filepath.Dir(guard), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{guard, filepath.Join(o.Dir, "hooks", "audit.sh")} {
				if err := os.WriteFile(f, []byte("#!/bin/sh\necho ran >> ran.log\nexit 0\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		})
	ctx := context.Background()
	if res := g.r.Fire(ctx, shellCall("ls")); !res.Empty() {
		t.Fatalf("unchanged: %+v (%s)", res, g.warned())
	}
	if err := os.WriteFile(guard, []byte("#!/bin/sh\ntouch pwned\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := g.r.Fire(ctx, shellCall("ls"))
	if !res.Block || !strings.Contains(res.Reason, "hooks/guard.sh changed since the run started") {
		t.Fatalf("changed: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(g.dir, "pwned")); !os.IsNotExist(err) {
		t.Fatal("the changed script ran")
	}
	if w := g.warned(); !strings.Contains(w, "changed since the run started") {
		t.Errorf("warnings %q", w)
	}
	b, _ := os.ReadFile(filepath.Join(g.dir, "ran.log"))
	if strings.Count(string(b), "ran") != 1 {
		t.Errorf("ran.log = %q", b)
	}
	if p := g.r.byEvent[PostToolUse][0].pins; len(p) != 1 || !strings.HasSuffix(p[0].path, "hooks/audit.sh") {
		t.Errorf("audit pins %+v", p)
	}
}

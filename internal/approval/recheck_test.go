package approval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/mcpclient"
)

// Before a project server that exited is started again, its grant must
// still cover it as it is now: a script edited mid-run keeps it down, and
// nobody is asked (a prompt mid-run would stop an unattended job).
func TestRecheckNeverAsksAndFollowsTheFiles(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "srv.py")
	if err := os.WriteFile(script, []byte("print('v1')\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := mcpclient.ServerSpec{Name: "proj", Project: true, Dir: dir,
		Config: mcpclient.ServerConfig{Command: "python3", Args: []string{"./srv.py"}}}
	g, out, _ := testGate(t, false, str("y\n"))
	if start, _, err := g.Spawn(context.Background(), spec); !start || err != nil {
		t.Fatalf("spawn: %v %v", start, err)
	}
	if err := g.Recheck(context.Background(), spec); err != nil {
		t.Errorf("unchanged: %v", err)
	}
	if err := os.WriteFile(script, []byte("print('v2: something else')\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	asked := out.Len()
	err := g.Recheck(context.Background(), spec)
	if err == nil || !strings.Contains(err.Error(), `project-level MCP server "proj" (python3 "./srv.py") is no longer approved as it is now`) {
		t.Errorf("changed file: %v", err)
	}
	if out.Len() != asked {
		t.Errorf("Recheck asked: %q", out.String()[asked:])
	}
	global := spec
	global.Project = false
	if err := g.Recheck(context.Background(), global); err != nil {
		t.Errorf("global server: %v", err)
	}
}

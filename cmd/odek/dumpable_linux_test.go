package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/odek-run/odek/internal/testbin"
)

// nobody is the unprivileged user the test runs odek as when it is root:
// root may read any process's environ, dumpable or not.
const nobody = 65534

// An MCP server that odek starts runs as the same user, and must still not
// be able to read odek's environment (with ODEK_API_KEY in it) through
// /proc/<ppid>/environ (issue 8, item 3).
func TestChildCannotReadParentEnviron(t *testing.T) {
	if testing.Short() {
		t.Skip("builds odek")
	}
	dir, err := os.MkdirTemp("", "odek-dumpable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	odek := testbin.Build(t, "odek", "./cmd/odek")
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{"peek": map[string]any{
		"command": fixture, "args": []string{"-root", dir, "-peek_parent"}, "auto_approve": true,
	}}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(odek, "tools")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "ODEK_HOME=" + home, "ODEK_API_KEY=sk-parent-secret-0123456789"}
	if os.Getuid() == 0 {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("odek tools: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "[peek] parent environ: open /proc/") || !strings.Contains(string(out), "/environ: permission denied") {
		t.Fatalf("the server could read odek's environment, or did not report:\n%s", out)
	}
}

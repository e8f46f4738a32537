package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/testbin"
)

// maxToolsRSS is the peak resident memory `odek tools` may reach against a
// hostile paging server (issue 8, item 1).
const maxToolsRSS = 64 << 20

// TestToolsDiscoveryMemoryBounded runs a real odek binary (built without
// -race, whose shadow memory would swamp the figure) against the fixture in
// its hostile paging mode: twelve tools/list pages, each a line just under
// max_response_bytes. odek must reject the server, naming the bound, and its
// peak RSS (wait4's ru_maxrss, which also covers the reaped server) must stay
// under 64 MiB. The small maxrss program starts odek and takes the figure:
// started from this test binary, odek's ru_maxrss would begin at the test
// binary's own high-water mark (vfork), which after the scripts have run is
// over the bound by itself.
func TestToolsDiscoveryMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds odek")
	}
	dir := t.TempDir()
	odek := testbin.Build(t, "odek", "./cmd/odek")
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	maxrss := testbin.Build(t, "maxrss", "./cmd/odek/testdata/maxrss")
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{"pager": map[string]any{
		"command": fixture, "args": []string{"-root", dir, "-pages", "12", "-page_bytes", "10485000"}, "auto_approve": true,
	}}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	rssFile := filepath.Join(dir, "odek-maxrss.kib")
	cmd := exec.Command(maxrss, rssFile, odek, "tools")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "ODEK_HOME=" + home}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Setup {
		t.Errorf("odek tools: %v, want exit %d", err, exitcode.Setup)
	}
	want := `odek: mcp server "pager": mcpclient pager: tools/list: tools/list exceeds the discovery bound tools_list_bytes=4194304 (observed at least `
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not name the bound:\n%.2000s", stderr.String())
	}
	data, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatalf("maxrss wrote no figure: %v", err)
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		t.Fatalf("maxrss wrote %.100q", data)
	}
	rss := kib << 10 // KiB on Linux
	t.Logf("peak RSS of odek tools: %.1f MiB", float64(rss)/(1<<20))
	if rss >= maxToolsRSS {
		t.Errorf("peak RSS %.1f MiB, want < %d MiB", float64(rss)/(1<<20), maxToolsRSS>>20)
	}
}

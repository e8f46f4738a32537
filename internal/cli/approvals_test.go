package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/testbin"
)

// approvalIOS is a terminal session in dir whose operator types answers.
func approvalIOS(dir, answers string, tty bool) (*iostreams.IOStreams, *bytes.Buffer, *bytes.Buffer) {
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(answers)
	ios.StdinTTY, ios.StderrTTY = tty, tty
	ios.LookupEnv = iostreams.EnvMap(map[string]string{"ODEK_HOME": filepath.Join(dir, ".odek"), "HOME": dir})
	ios.Getwd = func() (string, error) { return dir, nil }
	ios.Width = func() int { return 80 }
	return ios, out, errOut
}

// Declining a project server at the terminal runs without it (a warning);
// with nobody to ask, the same missing approval fails closed (exit 3).
func TestDeclinedProjectServerRunsWithout(t *testing.T) {
	dir := t.TempDir()
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	cfg := fmt.Sprintf(`{"mcp_servers": {"proj": {"command": %q, "args": ["-root", %q]}}}`, fixture, dir)
	if err := os.WriteFile(filepath.Join(dir, "odek.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, out, errOut := approvalIOS(dir, "n\n", true)
	if err := runTools(context.Background(), &toolsOptions{io: ios}); err != nil {
		t.Fatalf("declined server on a terminal: %v\n%s", err, errOut)
	}
	if !strings.Contains(errOut.String(), `Project-level MCP server "proj" wants to run:`) ||
		!strings.Contains(errOut.String(), `odek: warning: mcp server "proj" was not approved; running without it`) {
		t.Fatalf("stderr:\n%s", errOut)
	}
	if strings.Contains(out.String(), "proj__") {
		t.Fatalf("tools:\n%s", out)
	}
	ios, _, _ = approvalIOS(dir, "", false)
	err := runTools(context.Background(), &toolsOptions{io: ios})
	if err == nil || exitcode.Of(context.Background(), err) != exitcode.Setup || !strings.Contains(err.Error(), "requires explicit approval") {
		t.Fatalf("no terminal: %v", err)
	}
}

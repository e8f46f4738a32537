package approval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/testbin"
)

// fixtureBin is mcpclient's reference server, built once: the tests below
// run the Gate inside a real mcpclient.Start.
var fixtureBin string

func TestMain(m *testing.M) {
	var err error
	fixtureBin, err = testbin.Program("artifact_server", nil, "build", "-o", "{out}", "./internal/mcpclient/testdata/artifact_server.go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "building fixture:", err)
		os.Exit(1)
	}
	os.Exit(testbin.Main(m))
}

// fixtureToolNames are the tools the fixture lists, in its order.
var fixtureToolNames = []string{"echo", "echo_env", "large_result", "huge_line", "endless_line", "artifact_result",
	"bad_artifact", "slow", "error_result", "garbage", "wrong_ids", "crash", "hang", "flood",
	"server_requests", "mixed_content", "state", "rpc_error"}

func fixtureSpec(t *testing.T, name string, flags ...string) mcpclient.ServerSpec {
	return mcpclient.ServerSpec{Name: name, Config: mcpclient.ServerConfig{Command: fixtureBin,
		Args: append([]string{"-root", t.TempDir()}, flags...)}}
}

// startWith runs mcpclient.Start with a Gate over home and confirmer c.
func startWith(t *testing.T, home string, all bool, c Confirmer, specs ...mcpclient.ServerSpec) (*mcpclient.Set, []string, error) {
	t.Helper()
	g, err := New(Options{Home: home, ApproveAll: all, Confirmer: c})
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	set, warns, err := mcpclient.Start(ctx, mcpclient.StartOptions{Servers: specs, Gate: g,
		Client: mcpclient.Options{Environ: []string{"PATH=/usr/bin:/bin"}}})
	if set != nil {
		t.Cleanup(func() { _ = set.Close() })
	}
	return set, warns, err
}

func TestStartHugeSchemaSkipped(t *testing.T) {
	set, warns, err := startWith(t, t.TempDir(), true, nil, fixtureSpec(t, "a", "-big_schema"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range set.Tools() {
		if tl.Name() == "a__big_schema" {
			t.Fatal("oversized schema registered")
		}
	}
	if !strings.Contains(strings.Join(warns, "\n"), `mcp server "a": tool "big_schema" skipped: input schema is`) {
		t.Fatalf("warnings %q", warns)
	}
}

func TestStartPromptsAndRemembers(t *testing.T) {
	home := t.TempDir()
	project := fixtureSpec(t, "p")
	project.Project, project.Dir = true, "/repo"
	// Spawn yes, decline the first tool (echo), approve the rest.
	answers := "y\nn\n" + strings.Repeat("y\n", len(fixtureToolNames)-1)
	var out strings.Builder
	set, warns, err := startWith(t, home, false, NewPrompter(strings.NewReader(answers), &out), project)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Tools()); n != len(fixtureToolNames)-1 {
		t.Fatalf("%d tools", n)
	}
	if !strings.Contains(strings.Join(warns, "\n"), `mcp server "p": tool "echo" was not approved; skipped`) {
		t.Fatalf("warnings %q", warns)
	}
	if !strings.HasPrefix(out.String(), `Project-level MCP server "p" wants to run:`) || strings.Count(out.String(), approveQuestion) != 1 ||
		strings.Count(out.String(), approveServerQuestion) != len(fixtureToolNames) {
		t.Fatalf("prompts: %q", out.String())
	}
	_ = set.Close()
	for _, f := range []string{SpawnFile, ToolFile} {
		if info, err := os.Stat(filepath.Join(home, f)); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v", f, err)
		}
	}
	// Later, without a TTY: the spawn and 17 tools are remembered, echo is not.
	_, _, err = startWith(t, home, false, nil, project)
	var se *mcpclient.SetupError
	if err == nil || err.Error() != `MCP tool "echo" from server "p" requires explicit approval; run odek interactively once, or set ODEK_APPROVE_MCP=1` ||
		!errors.As(err, &se) || !errors.Is(err, ErrNotApproved) {
		t.Fatalf("err = %v", err)
	}
}

func TestNewBadApprovalFile(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ToolFile), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{Home: home, ApproveAll: true})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, ToolFile)) || !errors.Is(err, ErrStore) {
		t.Fatalf("err = %v", err)
	}
}

// "a" at a tool prompt approves that tool and every later tool of the
// server without asking again; each grant is stored under its own key.
func TestStartApproveEveryToolOfServer(t *testing.T) {
	home := t.TempDir()
	var out strings.Builder
	set, _, err := startWith(t, home, false, NewPrompter(strings.NewReader("y\na\n"), &out), fixtureSpec(t, "g"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Tools()); n != len(fixtureToolNames) {
		t.Fatalf("%d tools", n)
	}
	if n := strings.Count(out.String(), approveServerQuestion); n != 2 {
		t.Fatalf("%d tool prompts, want 2: %q", n, out.String())
	}
	s, err := OpenStore(filepath.Join(home, ToolFile))
	if err != nil || len(s.Entries()) != len(fixtureToolNames) {
		t.Fatalf("stored %d grants (%v)", len(s.Entries()), err)
	}
	_ = set.Close()
	if _, _, err := startWith(t, home, false, nil, fixtureSpec(t, "g")); err == nil || !strings.Contains(err.Error(), "requires explicit approval") {
		// A new -root argument is a new definition: nothing carries over.
		t.Fatalf("err = %v", err)
	}
}

// Declining a project server on a terminal runs without it.
func TestStartDeclinedProjectServerRunsWithout(t *testing.T) {
	project := fixtureSpec(t, "p")
	project.Project, project.Dir = true, t.TempDir()
	var out strings.Builder
	set, warns, err := startWith(t, t.TempDir(), false, NewPrompter(strings.NewReader("n\na\n"), &out), project, fixtureSpec(t, "g"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Clients()) != 1 || set.Clients()[0].Name() != "g" || !strings.Contains(strings.Join(warns, "\n"), `mcp server "p" was not approved; running without it`) {
		t.Fatalf("clients %d, warnings %q", len(set.Clients()), warns)
	}
}

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/iostreams"
)

// runTTY is run with a terminal on stdin and stderr that answers input.
func (c *fakeCLI) runTTY(input string, args ...string) cliResult {
	c.t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(input)
	ios.StdinTTY, ios.StderrTTY = true, true
	ios.Args = args
	ios.LookupEnv = iostreams.EnvMap(c.env)
	ios.Getwd = func() (string, error) { return c.dir, nil }
	ios.Width = func() int { return 80 }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return cliResult{code: Main(ctx, ios), stdout: out.String(), stderr: errOut.String()}
}

// A project hook: without a terminal and without a grant the run is a
// setup error naming it, before any model call; approved at the terminal
// it runs and the grant holds without one; once the script it names is
// edited it is asked about again; ODEK_APPROVE_HOOKS=1 runs it in CI.
func TestProjectHookApproval(t *testing.T) {
	c := newFakeCLI(t, `{"turns": [{"content": "ok"}, {"content": "ok"}, {"content": "ok"}, {"content": "ok"}, {"content": "ok"}]}`)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("odek.json", `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./hooks.sh"}]}]}}`)
	write("hooks.sh", "#!/bin/sh\necho ran >> hook.log\n")
	c.env["ODEK_API_KEY"] = "k"
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(c.dir, "hook.log"))
		return strings.Count(string(b), "ran")
	}

	r := c.run("run", "task")
	r.want(t, exitcode.Setup)
	if !strings.Contains(r.stderr, `project hook SessionStart "*" (./hooks.sh)`) || !strings.Contains(r.stderr, "ODEK_APPROVE_HOOKS=1") ||
		len(c.srv.Requests()) != 0 || runs() != 0 {
		t.Fatalf("no terminal: %d requests, %d runs\n%s", len(c.srv.Requests()), runs(), r.stderr)
	}

	r = c.runTTY("y\n", "run", "task")
	r.want(t, exitcode.OK)
	if !strings.Contains(r.stderr, "A project hook wants to run, inside the sandbox") || !strings.Contains(r.stderr, "bound to the content of: hooks.sh") || runs() != 1 {
		t.Fatalf("approved at the terminal: %d runs\n%s", runs(), r.stderr)
	}
	c.run("run", "task").want(t, exitcode.OK)
	if runs() != 2 {
		t.Fatalf("the stored grant did not hold: %d runs", runs())
	}

	write("hooks.sh", "#!/bin/sh\necho ran >> hook.log\necho pwned > pwned\n")
	r = c.run("run", "task")
	r.want(t, exitcode.Setup)
	if _, err := os.Stat(filepath.Join(c.dir, "pwned")); !os.IsNotExist(err) || runs() != 2 {
		t.Fatalf("the edited script ran without approval")
	}
	r = c.runTTY("n\n", "run", "task")
	r.want(t, exitcode.OK)
	if !strings.Contains(r.stderr, "A project hook wants to run") || !strings.Contains(r.stderr, "was not approved; running without it") || runs() != 2 {
		t.Fatalf("asked again: %d runs\n%s", runs(), r.stderr)
	}

	c.env["ODEK_APPROVE_HOOKS"] = "1"
	c.run("run", "task").want(t, exitcode.OK)
	if runs() != 3 {
		t.Fatalf("ODEK_APPROVE_HOOKS=1: %d runs", runs())
	}
	r = c.run("approvals", "list")
	if !strings.Contains(r.stdout, "hook ") || !strings.Contains(r.stdout, "SessionStart") {
		t.Fatalf("approvals list:\n%s", r.stdout)
	}
	r = c.run("approvals", "revoke", "--hooks")
	if r.stdout != "revoked 1 stored hook approval(s)\n" {
		t.Fatalf("revoke --hooks: %q", r.stdout)
	}
	c.env["ODEK_NO_HOOKS"] = "1"
	delete(c.env, "ODEK_APPROVE_HOOKS")
	c.run("run", "task").want(t, exitcode.OK) // --no-hooks: nothing to approve, nothing runs
	if runs() != 3 {
		t.Fatalf("no_hooks ran a hook")
	}
}

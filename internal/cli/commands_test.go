package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/exitcode"
	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/iostreams"
)

// In-process tests of the commands: the whole CLI (Main) over an
// IOStreams of buffers, a fake environment and working directory, against
// the fake OpenAI-compatible server. They sit beside the testscripts,
// which run the real binary; these show a command's options, setup and
// parts directly, without a process per case.

// fakeCLI is one odek home, working directory and fake LLM endpoint.
type fakeCLI struct {
	t   *testing.T
	dir string // the working directory and $HOME
	env map[string]string
	srv *fakellm.Server
}

// newFakeCLI starts the fake LLM with script (JSON, as the testscripts
// write it) and an empty home.
func newFakeCLI(t *testing.T, script string) *fakeCLI {
	t.Helper()
	sc, err := fakellm.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakellm.Start(sc, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ODEK_HOME": filepath.Join(dir, ".odek"), "HOME": dir, "ODEK_BASE_URL": srv.URL()}
	return &fakeCLI{t: t, dir: dir, env: env, srv: srv}
}

// cliResult is what one command line did.
type cliResult struct {
	code           int
	stdout, stderr string
}

// run executes one command line in this process.
func (c *fakeCLI) run(args ...string) cliResult {
	c.t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.In = nil // no stdin, as </dev/null would not be either
	ios.Args = args
	ios.LookupEnv = iostreams.EnvMap(c.env)
	ios.Getwd = func() (string, error) { return c.dir, nil }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := Main(ctx, ios)
	return cliResult{code: code, stdout: out.String(), stderr: errOut.String()}
}

// want fails the test unless the command exited with code.
func (r cliResult) want(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
}

// report decodes --output json's run report.
func (r cliResult) report(t *testing.T) map[string]any {
	t.Helper()
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON report: %v\n%s", err, r.stdout)
	}
	return rep
}

const franceScript = `{"turns": [{"match": "capital of France", "content": "Paris.", "usage": {"prompt_tokens": 20, "completion_tokens": 2}}]}`

func TestRunCommandAnswers(t *testing.T) {
	c := newFakeCLI(t, franceScript)
	r := c.run("run", "What is the capital of France?")
	r.want(t, exitcode.OK)
	if r.stdout != "Paris.\n" {
		t.Fatalf("stdout %q, want the answer alone", r.stdout)
	}
	if !strings.Contains(r.stderr, "odek: done · 1 iteration") {
		t.Fatalf("stderr has no summary:\n%s", r.stderr)
	}
	if n := len(c.srv.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
}

// stream-json and --events-jsonl together: stdout opens with the init
// line and ends with the report; the file gets the events, never the
// stream lines, run_completed last.
func TestRunCommandSinks(t *testing.T) {
	c := newFakeCLI(t, franceScript)
	ev := filepath.Join(c.dir, "ev.jsonl")
	r := c.run("run", "--output", "stream-json", "--events-jsonl", ev, "What is the capital of France?")
	r.want(t, exitcode.OK)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if !strings.Contains(lines[0], `"schema":"odek.stream/v1"`) || !strings.Contains(lines[0], `"type":"init"`) {
		t.Fatalf("first line: %s", lines[0])
	}
	if !strings.Contains(lines[len(lines)-1], `"schema":"odek.run-report/v1"`) || !strings.Contains(lines[len(lines)-1], `"status":"success"`) {
		t.Fatalf("last line: %s", lines[len(lines)-1])
	}
	b, err := os.ReadFile(ev)
	if err != nil {
		t.Fatal(err)
	}
	file := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if strings.Contains(string(b), `"type":"stream.`) || strings.Contains(string(b), `"type":"init"`) ||
		!strings.Contains(file[len(file)-1], `"type":"run_completed"`) {
		t.Fatalf("events file:\n%s", b)
	}
}

// Two calls in one batch against --max-tool-calls 1: the batch never runs,
// the model is asked for a summary once, the run stops with exit 4 and the
// report names the limit.
func TestRunCommandBudgetStop(t *testing.T) {
	c := newFakeCLI(t, `{"turns": [
  {"tool_calls": [{"id": "c1", "name": "list_dir", "arguments": {"path": "."}}, {"id": "c2", "name": "list_dir", "arguments": {"path": "."}}]},
  {"content": "Nothing was listed."}]}`)
	r := c.run("run", "--max-tool-calls", "1", "--output", "json", "list it")
	r.want(t, exitcode.Budget)
	rep := r.report(t)
	if rep["status"] != "budget_exhausted" || rep["termination_reason"] != "execution_budget:tool_calls" || rep["exit_code"] != float64(exitcode.Budget) {
		t.Fatalf("report: status %v, reason %v, exit_code %v", rep["status"], rep["termination_reason"], rep["exit_code"])
	}
	if calls := rep["tool_calls"].(map[string]any); calls["ok"] != float64(0) || calls["failed"] != float64(0) {
		t.Fatalf("tool_calls %v: the refused batch ran", calls)
	}
	if n := len(c.srv.Requests()); n != 2 {
		t.Fatalf("%d model requests, want 2 (the batch, the summary)", n)
	}
}

// An events file that cannot be opened is a setup error: exit 3, no model
// call, and --output json still reports it.
func TestRunCommandSetupError(t *testing.T) {
	c := newFakeCLI(t, franceScript)
	missing := filepath.Join(c.dir, "no-such-dir", "ev.jsonl")
	r := c.run("run", "--events-jsonl", missing, "--output", "json", "What is the capital of France?")
	r.want(t, exitcode.Setup)
	rep := r.report(t)
	if rep["status"] != "error" || rep["termination_reason"] != "setup_error" || !strings.Contains(rep["error"].(string), "no-such-dir") {
		t.Fatalf("report: %v", rep)
	}
	if !strings.Contains(r.stderr, "odek: ") || !strings.Contains(r.stderr, "no-such-dir") {
		t.Fatalf("stderr does not say what failed:\n%s", r.stderr)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Fatalf("%d model requests after a setup error", n)
	}
}

// A flag's bad value never reaches setup: exit 3 with a report.
func TestRunCommandBadOutputReport(t *testing.T) {
	c := newFakeCLI(t, franceScript)
	r := c.run("run", "--output", "json", "--external-ref", "nonsense", "task")
	r.want(t, exitcode.Setup)
	if rep := r.report(t); rep["termination_reason"] != "setup_error" {
		t.Fatalf("report: %v", rep)
	}
}

// continue carries the saved conversation on: the second request holds
// the first task and answer, then the new task.
func TestContinueCommand(t *testing.T) {
	c := newFakeCLI(t, `{"turns": [
  {"match": "capital of France", "content": "Paris."},
  {"match": "And of Italy", "content": "Rome."}]}`)
	c.run("run", "--session", "What is the capital of France?").want(t, exitcode.OK)
	r := c.run("continue", "And of Italy?")
	r.want(t, exitcode.OK)
	if r.stdout != "Rome.\n" || !strings.Contains(r.stderr, "odek: continuing session ") {
		t.Fatalf("stdout %q\nstderr: %s", r.stdout, r.stderr)
	}
	reqs := c.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	body := string(reqs[1].Body)
	for _, want := range []string{"capital of France", "Paris.", "And of Italy?"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the continued request lacks %q:\n%s", want, body)
		}
	}
}

// continue with a malformed --id is a setup error (exit 3) and without
// any saved session an error (exit 1), both before any model call.
func TestContinueCommandNoSession(t *testing.T) {
	c := newFakeCLI(t, franceScript)
	r := c.run("continue", "--id", "../x", "--output", "json", "more")
	r.want(t, exitcode.Setup)
	if rep := r.report(t); rep["termination_reason"] != "setup_error" {
		t.Fatalf("report: %v", rep)
	}
	r = c.run("continue", "more")
	r.want(t, exitcode.Error)
	if !strings.Contains(r.stderr, "odek: continue: ") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Fatalf("%d model requests", n)
	}
}

// subagent prints one result object on stdout: the answer as its summary.
func TestSubagentCommand(t *testing.T) {
	c := newFakeCLI(t, `{"turns": [{"match": "Count the files", "content": "There are 3 files."}]}`)
	r := c.run("subagent", "--goal", "Count the files", "--quiet")
	r.want(t, exitcode.OK)
	var res struct {
		Status, Summary string
		Usage           map[string]any
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout is not one result object: %v\n%s", err, r.stdout)
	}
	if res.Status != "success" || res.Summary != "There are 3 files." || res.Usage == nil {
		t.Fatalf("result: %+v", res)
	}
	if !strings.Contains(string(c.srv.Requests()[0].Body), "Count the files") {
		t.Fatal("the goal did not reach the model")
	}
}

// A stray argument is a setup error, still answered with a result object.
func TestSubagentCommandSetupError(t *testing.T) {
	c := newFakeCLI(t, franceScript)
	r := c.run("subagent", "--goal", "x", "stray")
	r.want(t, exitcode.Setup)
	if !strings.Contains(r.stdout, `"status":"error"`) || !strings.Contains(r.stdout, `unexpected argument \"stray\"`) {
		t.Fatalf("stdout: %s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(c.dir, ".odek", "artifacts")); err == nil {
		t.Fatal("a refused sub-agent created artifacts")
	}
}

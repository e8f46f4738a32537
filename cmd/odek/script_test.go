package main

import (
	"encoding/json"
	"fmt"
	"github.com/odek-run/odek/internal/sandbox"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the odek binary inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"odek": testOdek,
		// odek-exit is odek that also prints "[exit N]" as its last stderr
		// line, so scripts can assert the exact exit code.
		"odek-exit": func() {
			testHooks()
			code := checkedRun()
			fmt.Fprintf(os.Stderr, "[exit %d]\n", code)
			os.Exit(code)
		},
	})
}

// TestScripts runs testdata/script/*.txtar: the real CLI end to end against
// the fake OpenAI-compatible server, with real exit codes and files.
func TestScripts(t *testing.T) {
	bin := t.TempDir()
	fixture := buildTestBinary(t, bin, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	wordcount := buildTestBinary(t, bin, "wordcount", "./testdata/demo/wordcount")
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Condition:           scriptCondition,
		Setup: func(env *testscript.Env) error {
			env.Setenv("ODEK_HOME", filepath.Join(env.WorkDir, ".odek"))
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("NO_COLOR", "")
			env.Setenv("MCP_FIXTURE", fixture)
			env.Setenv("WORDCOUNT", wordcount)
			env.Values[fakeKey{}] = &fakeHolder{}
			return failOnViolations(env)
		},
		Cmds: withCmds(sessionCmds, map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakellm":           cmdFakeLLM,
			"llm-requests":      cmdLLMRequests,
			"llm-request":       cmdLLMRequest,
			"llm-prefix-stable": cmdLLMPrefixStable,
			"llm-system":        cmdLLMSystem,
			"event":             cmdEvent,
			"event-types":       cmdEventTypes,
			"events-normalize":  cmdEventsNormalize,
			"schema-check":      cmdSchemaCheck,
			"wait-file":         cmdWaitFile,
			"pid-dead":          cmdPidDead,
			// sub-agents (subagent_cmds_test.go)
			"llm-max-inflight":  cmdLLMMaxInFlight,
			"llm-request-match": cmdLLMRequestMatch,
			"llm-header-match":  cmdLLMHeaderMatch,
			"child-procs-clean": cmdChildProcsClean,
			"no-orphans":        cmdNoOrphans,
			"llm-wait":          cmdLLMWait,
			"same-event-types":  cmdSameEventTypes,
			"same-report":       cmdSameReport,
		}),
	})
}

// withCmds adds more testscript commands to cmds.
func withCmds(more, cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	for k, v := range more {
		cmds[k] = v
	}
	return cmds
}

// buildTestBinary compiles a helper program (an MCP server) for the scripts.
func buildTestBinary(t *testing.T, dir, name, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = filepath.Join("..", "..")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// cmdFakeLLM starts the fake LLM server with a script and points odek at it:
//
//	fakellm script.json
func cmdFakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakellm script.json")
	}
	script, err := fakellm.LoadScript(ts.MkAbs(args[0]))
	ts.Check(err)
	srv, err := fakellm.Start(script, "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { _ = srv.Close() })
	ts.Setenv("ODEK_BASE_URL", srv.URL())
	ts.Value(fakeKey{}).(*fakeHolder).srv = srv
}

// fakeKey finds a script's fakeHolder among its testscript values; each
// script has its own, so scripts can run in parallel.
type fakeKey struct{}

type fakeHolder struct{ srv *fakellm.Server }

func server(ts *testscript.TestScript) *fakellm.Server {
	srv := ts.Value(fakeKey{}).(*fakeHolder).srv
	if srv == nil {
		ts.Fatalf("no fakellm running")
	}
	return srv
}

// cmdLLMRequests asserts how many requests odek sent: llm-requests 3
func cmdLLMRequests(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: llm-requests N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := len(server(ts).Requests())
	if (got == want) == neg {
		ts.Fatalf("fake LLM received %d requests, want %s%d", got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// cmdLLMWait waits (at most waitTimeout) until the fake LLM has received N
// requests: odek is inside its Nth model call.
//
//	llm-wait 1
func cmdLLMWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: llm-wait N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	deadline := time.Now().Add(waitTimeout)
	for len(server(ts).Requests()) < want {
		if time.Now().After(deadline) {
			ts.Fatalf("the fake LLM received %d requests after %v, want %d", len(server(ts).Requests()), waitTimeout, want)
		}
		time.Sleep(10 * time.Millisecond) // polling: the request's arrival is the event waited for
	}
}

// cmdLLMRequest asserts that request N's JSON body contains a substring:
//
//	llm-request 1 '"max_tokens":5'
func cmdLLMRequest(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: llm-request N substring")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	reqs := server(ts).Requests()
	if n < 1 || n > len(reqs) {
		ts.Fatalf("request %d does not exist (%d received)", n, len(reqs))
	}
	body := string(reqs[n-1].Body)
	if strings.Contains(body, args[1]) == neg {
		pretty, _ := json.MarshalIndent(json.RawMessage(body), "", " ")
		ts.Fatalf("request %d %s %q:\n%s", n, map[bool]string{true: "contains", false: "does not contain"}[neg], args[1], pretty)
	}
}

// scriptCondition adds [landlock]: the kernel holds every sandbox promise
// (Landlock ABI 6+ and seccomp), so scripts that attack the sandbox run
// only where it exists.
func scriptCondition(cond string) (bool, error) {
	if cond == "landlock" {
		return len(sandbox.Probe().Missing(false)) == 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

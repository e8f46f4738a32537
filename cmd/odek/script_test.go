package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/testbin"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the odek binary inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(sharedM{m}, map[string]func(){
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
//
// Under -race the odek the scripts run is this package's test binary built
// once without -race (scriptOdekDir): a race-enabled odek is several times
// slower to start and run, and the scripts' hundreds of runs made cmd/odek
// most of make test's wall time. The race detector still watches every
// in-process test of this package and every internal package's tests, and
// TestScriptsRace runs the concurrency-heavy scripts with the race-enabled
// odek. ODEK_SCRIPTS_RACE=1 runs all scripts with it.
func TestScripts(t *testing.T) {
	t.Parallel()
	odekDir := ""
	if raceEnabled && os.Getenv("ODEK_SCRIPTS_RACE") != "1" {
		odekDir = scriptOdekDir(t)
	}
	testscript.Run(t, scriptParams(t, odekDir, nil))
}

// raceScripts are the scripts whose odek runs goroutines against each
// other the most: sub-agents in parallel, interrupts during tool calls and
// MCP shutdown, the event emitter under a slow sink. TestScriptsRace runs
// them with the race-enabled odek.
var raceScripts = []string{
	"subagent_parallel", "interrupt_term", "mcp_interrupt",
	"events_drop", "events_fifo", "events_sink", "sandbox_tmp_servers", "sandbox_build_error",
}

// TestScriptsRace runs raceScripts with odek built with -race (this test
// binary), so the race detector sees the CLI's own concurrency end to end.
func TestScriptsRace(t *testing.T) {
	t.Parallel()
	if !raceEnabled {
		t.Skip("the test binary is not race-enabled")
	}
	if os.Getenv("ODEK_SCRIPTS_RACE") == "1" {
		t.Skip("TestScripts runs every script race-enabled")
	}
	files := make([]string, len(raceScripts))
	for i, name := range raceScripts {
		files[i] = filepath.Join("..", "..", "testdata", "script", name+".txtar")
	}
	testscript.Run(t, scriptParams(t, "", files))
}

// scriptOdekDir builds this package's tests without -race, once, and
// returns a directory holding it as odek and odek-exit (testscript.Main
// dispatches on the program's name).
func scriptOdekDir(t *testing.T) string {
	t.Helper()
	bin, err := testbin.Program("odek.test", nil, "test", "-c", "-o", "{out}", "./cmd/odek")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(bin), "scriptodek")
	scriptOdekOnce.Do(func() {
		scriptOdekErr = os.MkdirAll(dir, 0o755)
		for _, name := range []string{"odek", "odek-exit"} {
			if scriptOdekErr == nil {
				scriptOdekErr = os.Link(bin, filepath.Join(dir, name))
			}
		}
	})
	if scriptOdekErr != nil {
		t.Fatal(scriptOdekErr)
	}
	return dir
}

var (
	scriptOdekOnce sync.Once
	scriptOdekErr  error
)

// scriptParams are the testscript parameters of the script tests: the
// scripts in files (nil: all of testdata/script), odek from odekDir first
// on PATH ("" leaves the race-enabled test binary testscript.Main put there).
func scriptParams(t *testing.T, odekDir string, files []string) testscript.Params {
	fixture := testbin.Build(t, "mcpfixture", "./internal/mcpclient/testdata/artifact_server.go")
	wordcount := testbin.Build(t, "wordcount", "./testdata/demo/wordcount")
	prefilter := testbin.Build(t, "prefilter", "./testdata/prefilter")
	dir := filepath.Join("..", "..", "testdata", "script")
	if files != nil {
		dir = ""
	}
	return testscript.Params{
		Dir:                 dir,
		Files:               files,
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Condition:           scriptCondition,
		Setup: func(env *testscript.Env) error {
			if odekDir != "" {
				env.Setenv("PATH", odekDir+string(filepath.ListSeparator)+env.Getenv("PATH"))
			}
			env.Setenv("ODEK_HOME", filepath.Join(env.WorkDir, ".odek"))
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("NO_COLOR", "")
			env.Setenv("MCP_FIXTURE", fixture)
			env.Setenv("WORDCOUNT", wordcount)
			env.Setenv("PREFILTER", prefilter)
			env.Values[fakeKey{}] = &fakeHolder{}
			env.Values[otelKey{}] = newOtelHolder()
			return failOnViolations(env)
		},
		Cmds: withCmds(telemetryCmds, withCmds(sessionCmds, map[string]func(ts *testscript.TestScript, neg bool, args []string){
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
			"wait-count":        cmdWaitCount,
			"event-gaps":        cmdEventGaps,
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
		})),
	}
}

// withCmds adds more testscript commands to cmds.
func withCmds(more, cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	for k, v := range more {
		cmds[k] = v
	}
	return cmds
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

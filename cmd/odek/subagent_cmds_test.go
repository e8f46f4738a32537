package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdLLMMaxInFlight asserts the most chat requests the fake LLM answered at
// once: llm-max-inflight 3
func cmdLLMMaxInFlight(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: llm-max-inflight N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if got := server(ts).MaxInFlight(); (got == want) == neg {
		ts.Fatalf("fake LLM answered at most %d requests at once, want %s%d", got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// cmdLLMRequestMatch asserts that every request whose last message contains
// match has a JSON body that contains (or, negated, lacks) substring, and
// that there is at least one:
//
//	llm-request-match 'count alpha' '"fx__echo"'
func cmdLLMRequestMatch(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: llm-request-match match substring")
	}
	n := 0
	for i, r := range server(ts).Requests() {
		if k := len(r.Messages); k == 0 || !strings.Contains(r.Messages[k-1].Content, args[0]) {
			continue
		}
		n++
		if strings.Contains(string(r.Body), args[1]) == neg {
			pretty, _ := json.MarshalIndent(json.RawMessage(r.Body), "", " ")
			ts.Fatalf("request %d %s %q:\n%s", i+1, map[bool]string{true: "contains", false: "does not contain"}[neg], args[1], pretty)
		}
	}
	if n == 0 {
		ts.Fatalf("no request's last message contains %q", args[0])
	}
}

// proc is one live process seen in /proc.
type proc struct {
	pid              string
	cmdline, environ string
	cwd              string
}

// workProcs lists the live (non-zombie) processes running in dir.
func workProcs(dir string) []proc {
	ents, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		base := filepath.Join("/proc", e.Name())
		cwd, err := os.Readlink(filepath.Join(base, "cwd"))
		if err != nil || cwd != dir {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(base, "stat")); err != nil || strings.Contains(string(stat), ") Z ") {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(base, "cmdline"))
		env, _ := os.ReadFile(filepath.Join(base, "environ"))
		out = append(out, proc{pid: e.Name(), cmdline: string(cmd), environ: string(env), cwd: cwd})
	}
	return out
}

// cmdChildProcsClean checks the N sub-agents parked in $ODEK_TEST_PARK_DIR
// (see park in subagent_hooks_test.go), so the state checked cannot change
// under the check: each had closed descriptor 3 before odek's own code ran
// (childkey took the key in its init) and was told ODEK_API_KEY_FD=3; the
// key is in the environment or argv of no process in $WORK but the run
// that started them; -NAME must not be in a sub-agent's environment, +NAME
// must. It then lets each go on:
//
//	child-procs-clean 1 sk-test-key -GITHUB_TOKEN +PLAIN_VAR
func cmdChildProcsClean(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: child-procs-clean N KEY [-NAME|+NAME]...")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	key, names, park := args[1], args[2:], ts.Getenv("ODEK_TEST_PARK_DIR")
	if park == "" {
		ts.Fatalf("child-procs-clean needs ODEK_TEST_PARK_DIR")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		ts.Fatalf("needs /proc (guard the script with [linux])")
	}
	pids := waitParked(ts, park, n)
	parents := map[string]bool{}
	for _, pid := range pids {
		parents[checkParkedChild(ts, park, pid, key, names)] = true
	}
	for _, p := range workProcs(ts.Getenv("WORK")) {
		if !parents[p.pid] && (strings.Contains(p.environ, key) || strings.Contains(p.cmdline, key)) {
			ts.Fatalf("pid %s (%s): the API key is in its environment or argv", p.pid, strings.ReplaceAll(p.cmdline, "\x00", " "))
		}
	}
	for _, pid := range pids {
		ts.Check(os.WriteFile(filepath.Join(park, pid+".go"), nil, 0o600))
	}
}

// waitParked waits (at most waitTimeout) until n sub-agents have parked in
// dir, and returns their pids.
func waitParked(ts *testscript.TestScript, dir string, n int) []string {
	for deadline := time.Now().Add(waitTimeout); ; {
		marks, _ := filepath.Glob(filepath.Join(dir, "*.parked"))
		if len(marks) >= n {
			pids := make([]string, len(marks))
			for i, m := range marks {
				pids[i] = strings.TrimSuffix(filepath.Base(m), ".parked")
			}
			return pids
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%d sub-agents parked in %s after %v, want %d", len(marks), dir, waitTimeout, n)
		}
		time.Sleep(10 * time.Millisecond) // polling: a child's marker is the event waited for
	}
}

// checkParkedChild checks one sub-agent parked in dir and returns its
// parent's pid. Its environment and descriptor 3 are what it announced
// (park); its cmdline and stat, which every process may read, come from
// /proc.
func checkParkedChild(ts *testscript.TestScript, dir, pid, key string, names []string) string {
	base := filepath.Join("/proc", pid)
	read := func(name string) string {
		b, err := os.ReadFile(name)
		ts.Check(err)
		return string(b)
	}
	cmdline, stat := read(filepath.Join(base, "cmdline")), read(filepath.Join(base, "stat"))
	fd3, environ, _ := strings.Cut(read(filepath.Join(dir, pid+".parked")), "\n")
	if !strings.Contains(cmdline, "subagent\x00--task") {
		ts.Fatalf("pid %s is not a sub-agent: %q", pid, cmdline)
	}
	if strings.Contains(environ, key) || strings.Contains(cmdline, key) {
		ts.Fatalf("pid %s: the API key is in its environment or argv", pid)
	}
	if !strings.Contains("\x00"+environ, "\x00ODEK_API_KEY_FD=3\x00") {
		ts.Fatalf("pid %s: no ODEK_API_KEY_FD=3 in its environment", pid)
	}
	for _, a := range names {
		has := strings.Contains("\x00"+environ, "\x00"+a[1:]+"=")
		if has != (a[0] == '+') {
			ts.Fatalf("pid %s: %s in the environment is %v", pid, a[1:], has)
		}
	}
	if fd3 != "fd3=closed" {
		ts.Fatalf("pid %s: descriptor 3 is still open when odek's own code starts (%s)", pid, fd3)
	}
	ts.Logf("pid %s: key absent from environ and cmdline; descriptor 3 closed before odek's code ran", pid)
	_, rest, _ := strings.Cut(stat[strings.LastIndexByte(stat, ')')+1:], " ")
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		ts.Fatalf("pid %s: unreadable stat %q", pid, stat)
	}
	return fields[1]
}

// cmdNoOrphans asserts that no process is left running in $WORK.
func cmdNoOrphans(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: no-orphans")
	}
	if left := workProcs(ts.Getenv("WORK")); len(left) > 0 {
		var desc []string
		for _, p := range left {
			desc = append(desc, p.pid+" "+strings.ReplaceAll(p.cmdline, "\x00", " "))
		}
		ts.Fatalf("processes left running in $WORK:\n%s", strings.Join(desc, "\n"))
	}
}

// cmdLLMHeaderMatch asserts a header of every request whose last message
// contains match: llm-header-match 'Task: one' Authorization 'Bearer sk-1'
func cmdLLMHeaderMatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: llm-header-match match header value")
	}
	n := 0
	for i, r := range server(ts).Requests() {
		if k := len(r.Messages); k == 0 || !strings.Contains(r.Messages[k-1].Content, args[0]) {
			continue
		}
		n++
		if got := r.Header.Get(args[1]); got != args[2] {
			ts.Fatalf("request %d: %s is %q, want %q", i+1, args[1], got, args[2])
		}
	}
	if n == 0 {
		ts.Fatalf("no request's last message contains %q", args[0])
	}
}

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

// cmdChildProcsClean waits (up to 20 s) for a running `odek subagent` in
// $WORK and checks, through /proc, that the API key is in neither its
// environment nor its argv, that it was told ODEK_API_KEY_FD=3, and that its
// fd 3 is an unlinked file; -NAME must not be in its environment, +NAME must:
//
//	child-procs-clean sk-test-key -GITHUB_TOKEN +PLAIN_VAR
func cmdChildProcsClean(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: child-procs-clean KEY [-NAME|+NAME]...")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		ts.Fatalf("needs /proc (guard the script with [linux])")
	}
	key, dir := args[0], ts.Getenv("WORK")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var children []proc
		for _, p := range workProcs(dir) {
			if strings.Contains(p.cmdline, "subagent\x00--task") {
				children = append(children, p)
			}
		}
		if len(children) == 0 {
			time.Sleep(20 * time.Millisecond) // polling /proc: the child's appearance is the event waited for
			continue
		}
		for _, p := range children {
			if strings.Contains(p.environ, key) || strings.Contains(p.cmdline, key) {
				ts.Fatalf("pid %s: the API key is in its environment or argv", p.pid)
			}
			if !strings.Contains("\x00"+p.environ, "\x00ODEK_API_KEY_FD=3\x00") {
				ts.Fatalf("pid %s: no ODEK_API_KEY_FD=3 in its environment", p.pid)
			}
			for _, a := range args[1:] {
				has := strings.Contains("\x00"+p.environ, "\x00"+a[1:]+"=")
				if has != (a[0] == '+') {
					ts.Fatalf("pid %s: %s in the environment is %v", p.pid, a[1:], has)
				}
			}
			link, err := os.Readlink(filepath.Join("/proc", p.pid, "fd", "3"))
			if err == nil && !strings.HasSuffix(link, "(deleted)") {
				ts.Fatalf("pid %s: fd 3 is %s, not an unlinked file", p.pid, link)
			}
			ts.Logf("pid %s: key absent from environ and cmdline; fd 3 → %s", p.pid, link)
			waitKeyClosed(ts, p.pid)
		}
		return
	}
	ts.Fatalf("no odek subagent process appeared in %s", dir)
}

// waitKeyClosed waits (up to 10 s) until the child has closed the key
// descriptor, so nothing it starts can inherit it.
func waitKeyClosed(ts *testscript.TestScript, pid string) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		link, err := os.Readlink(filepath.Join("/proc", pid, "fd", "3"))
		if err != nil || !strings.Contains(link, "odek-key-") {
			return
		}
		time.Sleep(20 * time.Millisecond) // polling /proc for the close
	}
	ts.Fatalf("pid %s still holds the key descriptor after 10 s", pid)
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

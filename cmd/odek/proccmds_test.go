package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitTimeout bounds how long the waiting script commands wait; they return
// as soon as what they wait for happens.
const waitTimeout = 30 * time.Second

// cmdWaitFile waits until a file exists and contains a substring:
//
//	wait-file ev.jsonl '"type":"tool_call_started"'
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: wait-file file substring")
	}
	waitCount(ts, args[0], args[1], 1)
}

// waitCount waits until file holds substr n times or more, polling: the
// line's arrival is the event waited for (wait-file, wait-count).
func waitCount(ts *testscript.TestScript, file, substr string, n int) {
	path := ts.MkAbs(file)
	deadline := time.Now().Add(waitTimeout)
	for {
		if b, err := os.ReadFile(path); err == nil && bytes.Count(b, []byte(substr)) >= n {
			return
		}
		if time.Now().After(deadline) {
			if n == 1 {
				ts.Fatalf("%s has no %q after %v", file, substr, waitTimeout)
			}
			ts.Fatalf("%s holds %q fewer than %d times after %v", file, substr, n, waitTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cmdPidDead asserts that the process whose pid a file holds is gone (a
// zombie counts as gone: it is dead, waiting for init to reap it), waiting
// for it at most waitTimeout. It is the no-orphan check of the interrupt
// scripts.
//
//	pid-dead server.pid
func cmdPidDead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pid-dead pidfile")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	ts.Check(err)
	deadline := time.Now().Add(waitTimeout)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			ts.Fatalf("process %d (from %s) is still running: an orphaned MCP server", pid, args[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processAlive reads /proc/<pid>/stat: absent or state Z (zombie) or X is dead.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may contain spaces
	if i < 0 || i+2 >= len(s) {
		return false
	}
	state := s[i+2]
	return state != 'Z' && state != 'X'
}

package main

import (
	"bufio"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/sandbox"

	"github.com/odek-run/odek/internal/subagent/childside"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// testOdek is the test binary's "odek": odek itself, with test seams.
// ODEK_TEST_WAIT_NOTICE_MS shortens the 5 s after which a queued sub-agent
// is reported. ODEK_TEST_SOFT_DEADLINE_MS puts a sub-agent's soft deadline
// that long after its start (the hard one stays its timeout), so a script
// can give the partial summary a wide window instead of timeout/8.
// ODEK_TEST_MCP_INTERRUPT_GRACE_MS widens each step of stopping the MCP
// servers after an interrupt, so a script can act during that wait.
// ODEK_TEST_PARK_DIR=dir parks a sub-agent before it does anything of its
// own (childkey's init has taken the key by then): it writes dir/<pid>.parked
// and waits for dir/<pid>.go (see child-procs-clean). With
// ODEK_TEST_CHILD_HOOKS=1, a sub-agent whose goal names a hook stands in for
// a broken or compromised child:
//
//	[crash]   panics before doing anything (a Go crash: exit status 2)
//	[flood]   writes lines to stdout without end
//	[stage]   stages notes.txt (small) and big.log (40 KiB) as artifacts, as
//	          a model would with a write tool, then runs normally
//	[tamper]  stages report.txt, runs normally, and changes the artifact
//	          after the child measured it, before the parent reads the result
//	[keep]    copies its task file to kept-task.json, then runs normally
func testOdek() {
	testHooks()
	os.Exit(checkedRun())
}

// testHooks applies the seams; a hooked child may exit here.
func testHooks() {
	eventTestHooks()
	if ms, err := strconv.Atoi(os.Getenv("ODEK_TEST_WAIT_NOTICE_MS")); err == nil {
		agentrun.Seams.WaitNotice = time.Duration(ms) * time.Millisecond
	}
	if ms, err := strconv.ParseInt(os.Getenv("ODEK_TEST_SOFT_DEADLINE_MS"), 10, 64); err == nil {
		agentrun.Seams.SoftDeadline = func(secs int) (int64, int64) {
			_, hard := childside.SoftDeadline(secs)
			return min(ms, hard), hard
		}
	}
	if abi, err := strconv.Atoi(os.Getenv("ODEK_TEST_LANDLOCK_ABI")); err == nil {
		// Pretend the kernel offers only this Landlock ABI (0 = none).
		agentrun.Seams.ProbeSandbox = func() sandbox.Support { s := sandbox.Probe(); s.LandlockABI = min(abi, s.LandlockABI); return s }
	}
	if ms, err := strconv.Atoi(os.Getenv("ODEK_TEST_MCP_INTERRUPT_GRACE_MS")); err == nil {
		agentrun.Seams.MCPInterruptGrace = time.Duration(ms) * time.Millisecond
	}
	child := len(os.Args) > 3 && os.Args[1] == "subagent" && os.Args[2] == "--task"
	if dir := os.Getenv("ODEK_TEST_PARK_DIR"); dir != "" && child {
		park(dir)
	}
	if os.Getenv("ODEK_TEST_CHILD_HOOKS") == "1" && child {
		childHook(os.Args[3])
	}
}

// park announces this sub-agent in dir and waits (at most waitTimeout, so a
// failed script leaves nothing parked) for the script to let it go on. The
// announcement says what the sub-agent holds, since it is non-dumpable and
// its user cannot read that in /proc: "fd3=<descriptor 3, or closed>", a
// newline, and its environment as it was exec'd (/proc/self/environ).
func park(dir string) {
	fd3 := "closed" // looked at before this opens a file
	if link, err := os.Readlink("/proc/self/fd/3"); err == nil {
		fd3 = link
	}
	environ, _ := os.ReadFile("/proc/self/environ")
	base := filepath.Join(dir, strconv.Itoa(os.Getpid()))
	// Written whole, then renamed: the script reads it as soon as it appears.
	if os.WriteFile(base+".new", append([]byte("fd3="+fd3+"\n"), environ...), 0o600) != nil || os.Rename(base+".new", base+".parked") != nil {
		return
	}
	for deadline := time.Now().Add(waitTimeout); time.Now().Before(deadline); {
		if _, err := os.Stat(base + ".go"); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond) // polling: the script's go-ahead is the event waited for
	}
}

func childHook(taskFile string) {
	data, err := os.ReadFile(taskFile)
	if err != nil {
		return
	}
	task, err := wire.ParseTask(data)
	if err != nil {
		return
	}
	stage := filepath.Join(childside.StageDir, task.TaskID)
	switch {
	case strings.Contains(task.Goal, "[crash]"):
		panic("sub-agent test crash")
	case strings.Contains(task.Goal, "[flood]"):
		w := bufio.NewWriter(os.Stdout)
		for {
			_, _ = w.WriteString(`{"type":"tool_call","name":"flood"}` + "\n")
		}
	case strings.Contains(task.Goal, "[stage]"):
		_ = os.MkdirAll(stage, 0o755)
		_ = os.WriteFile(filepath.Join(stage, "notes.txt"), []byte("line one\nline two\n"), 0o644)
		_ = os.WriteFile(filepath.Join(stage, "big.log"), []byte(strings.Repeat("0123456789abcdef\n", 40<<10/17+1)), 0o644)
	case strings.Contains(task.Goal, "[keep]"):
		_ = os.WriteFile("kept-task.json", data, 0o600)
	case strings.Contains(task.Goal, "[tamper]"):
		_ = os.MkdirAll(stage, 0o755)
		_ = os.WriteFile(filepath.Join(stage, "report.txt"), []byte("original\n"), 0o644)
		os.Exit(tamperAfterResult())
	}
}

// tamperAfterResult runs odek with stdout filtered: when the result line
// passes, the first artifact it names grows by a few bytes, then the line
// goes on to the parent.
func tamperAfterResult() int {
	realOut := os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		return 1
	}
	os.Stdout = w
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			var l wire.Line
			if json.Unmarshal(line, &l) == nil && l.Type == wire.LineResult && l.Result != nil && len(l.Result.Artifacts) > 0 {
				if u, err := url.Parse(l.Result.Artifacts[0].URI); err == nil {
					if f, err := os.OpenFile(u.Path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
						_, _ = f.WriteString("tampered\n")
						f.Close()
					}
				}
			}
			_, _ = realOut.Write(append(line, '\n'))
		}
	}()
	code := run()
	w.Close()
	<-done
	return code
}

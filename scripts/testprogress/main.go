// Command testprogress turns `go test -json` into what a developer waiting
// for make test wants to see: go test's own package lines (ok, FAIL, build
// errors) as they come, the whole output of every failed test, and one
// progress line per finished end-to-end script, so a package that runs for
// minutes is not silent. It exits 1 when anything failed.
//
//	go test -json ./... | go run ./scripts/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of test2json output.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string
}

func main() {
	failed, err := run(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// run copies the report of in to out; failed says whether a test, a
// package or a build failed.
func run(in io.Reader, out io.Writer) (failed bool, err error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	held := map[string][]string{} // output of each running test, by package and name
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line) // not test2json: pass it on
			continue
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(out, e.Output)
		case e.Action == "build-fail":
			failed = true
		case e.Test == "" && e.Action == "output":
			fmt.Fprint(out, e.Output) // ok/FAIL/PASS lines and package-level messages
		case e.Test == "" && e.Action == "fail":
			failed = true
		case e.Action == "output":
			held[key] = append(held[key], e.Output)
		case e.Action == "fail":
			failed = true
			fmt.Fprint(out, strings.Join(held[key], ""))
			delete(held, key)
		case e.Action == "pass" || e.Action == "skip":
			if script, ok := scriptName(e.Test); ok {
				fmt.Fprintf(out, "    %s script %s (%.1fs)\n", e.Action, script, e.Elapsed)
			}
			delete(held, key)
		}
	}
	return failed, sc.Err()
}

// scriptName names an end-to-end script's test: TestScripts/x is x,
// TestScriptsRace/x (the race-enabled pass) is x (race).
func scriptName(test string) (string, bool) {
	if s, ok := strings.CutPrefix(test, "TestScriptsRace/"); ok && !strings.Contains(s, "/") {
		return s + " (race)", true
	}
	s, ok := strings.CutPrefix(test, "TestScripts/")
	return s, ok && !strings.Contains(s, "/")
}

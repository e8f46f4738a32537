package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// violationsFile collects, per script, every published-schema violation of
// a stream odek wrote; the script fails at its end when it exists. A file
// rather than an exit code, so `! exec odek` cannot swallow a violation.
const violationsFile = ".schema-violations"

// checkedRun is run for the scripts' odek: every event file it wrote
// (--events-jsonl), every run report it printed (--output json), every
// `odek tools --json` listing and every line a sub-agent printed is
// validated against docs/schema with the real validator, whatever the
// script itself checks.
func checkedRun() int {
	args := os.Args[1:]
	eventsPath := flagArg(args, "--events-jsonl")
	stdoutSchema := ""
	switch {
	case len(args) == 0:
	case (args[0] == "run" || args[0] == "continue") && flagArg(args, "--output") == "json":
		stdoutSchema = "run-report"
	case (args[0] == "run" || args[0] == "continue") && flagArg(args, "--output") == "stream-json":
		stdoutSchema = "stream-json"
	case args[0] == "tools" && slices.Contains(args, "--json"):
		stdoutSchema = "tools"
	case args[0] == "subagent": // by hand, and every child delegate_tasks starts
		stdoutSchema = "subagent"
	}
	var before int64
	if eventsPath != "" {
		if fi, err := os.Stat(eventsPath); err == nil && fi.Mode().IsRegular() {
			before = fi.Size() // the file is appended to: check this run's lines only
		} else if err == nil {
			eventsPath = "" // a FIFO: its reader checks what it read
		}
	}
	var out *bytes.Buffer
	var done chan struct{}
	if stdoutSchema != "" {
		out, done = teeStdout()
	}
	code := run()
	var problems []string
	if stdoutSchema != "" {
		os.Stdout.Close()
		<-done
		problems = append(problems, checkValues("stdout", stdoutSchema, out.Bytes())...)
	}
	if eventsPath != "" {
		if b, err := os.ReadFile(eventsPath); err == nil && int64(len(b)) >= before {
			problems = append(problems, checkValues(eventsPath, "event", b[before:])...)
		}
	}
	if len(problems) > 0 {
		recordViolations(strings.Join(os.Args, " "), problems)
	}
	return code
}

// teeStdout replaces os.Stdout with a pipe whose bytes reach the real
// stdout and a buffer; done closes once the pipe is drained.
func teeStdout() (*bytes.Buffer, chan struct{}) {
	real := os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	os.Stdout = w
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.MultiWriter(real, &buf), r)
		close(done)
	}()
	return &buf, done
}

// checkValues validates every JSON value of data against a published
// schema. "stream-json" is --output stream-json: one value per line, events
// and stream lines, then the run report as the last line.
func checkValues(what, schema string, data []byte) []string {
	if schema == "stream-json" {
		return checkStream(what, data)
	}
	sch, err := publishedSchema(schema)
	if err != nil {
		return []string{err.Error()}
	}
	if schema == "subagent" {
		data = withoutFrameBody(data)
	}
	var problems []string
	dec := json.NewDecoder(bytes.NewReader(data))
	for n := 1; ; n++ {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return append(problems, fmt.Sprintf("%s: value %d is not JSON: %v", what, n, err))
		}
		if err := sch.Validate(v); err != nil {
			problems = append(problems, fmt.Sprintf("%s: value %d does not match the %s schema: %v", what, n, schema, err))
		}
	}
	return problems
}

// checkStream checks stream-json output: whole lines, each one JSON value,
// all events or stream lines (odek.stream/v1) but the last, which is the
// run report.
func checkStream(what string, data []byte) []string {
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return []string{what + ": stream-json output does not end with a whole line"}
	}
	lines := bytes.Split(data[:len(data)-1], []byte("\n"))
	var problems []string
	for i, line := range lines {
		schema := "event"
		switch {
		case i == len(lines)-1:
			schema = "run-report"
		case bytes.HasPrefix(line, []byte(`{"schema":"odek.stream/v1"`)):
			schema = "stream"
		}
		if p := checkValues(fmt.Sprintf("%s line %d", what, i+1), schema, line); len(p) > 0 {
			problems = append(problems, p...)
		}
	}
	return problems
}

// flagArg is the value of a --name value or --name=value argument.
func flagArg(args []string, name string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func recordViolations(cmdline string, problems []string) {
	path := filepath.Join(os.Getenv("WORK"), violationsFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "streamcheck: %v\n", err)
		return
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "%s\n", cmdline)
	for _, p := range problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
	_ = w.Flush()
}

// failOnViolations makes a script fail at its end when odek wrote a stream
// that does not match the published schemas.
func failOnViolations(env *testscript.Env) error {
	dir, err := filepath.Abs(schemaDir())
	if err != nil {
		return err
	}
	env.Setenv(schemaDirEnv, dir)
	env.Defer(func() {
		if b, err := os.ReadFile(filepath.Join(env.WorkDir, violationsFile)); err == nil {
			env.T().Fatal("odek wrote streams that do not match docs/schema:\n" + string(b))
		}
	})
	return nil
}

// withoutFrameBody drops the base64 lines of an artifact frame (between
// an "artifacts" line and its "artifacts_end": docs/SCALE.md), which are
// not JSON; the frame's own lines are still checked.
func withoutFrameBody(data []byte) []byte {
	var out []byte
	in := false
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte(`{"type":"artifacts",`)):
			in = true
		case bytes.HasPrefix(line, []byte(`{"type":"artifacts_end"`)):
			in = false
		case in:
			continue
		}
		out = append(out, line...)
	}
	return out
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// readEvents parses a JSONL events file; every line must be one JSON object.
func readEvents(ts *testscript.TestScript, path string) []map[string]any {
	f, err := os.Open(ts.MkAbs(path))
	ts.Check(err)
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			ts.Fatalf("%s: line %d is not JSON: %v", path, len(out)+1, err)
		}
		out = append(out, ev)
	}
	ts.Check(sc.Err())
	return out
}

// cmdEvent asserts that some event of a type has data.<field> equal to a
// JSON value, or (with "<" or ">") below or above a number:
//
//	event events.jsonl budget_exceeded limit_name '"output_tokens"'
//	event events.jsonl run_failed duration_ms '<2500'
func cmdEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: event file type field value")
	}
	evs := readEvents(ts, args[0])
	found := false
	for _, ev := range evs {
		if ev["type"] != args[1] {
			continue
		}
		data, _ := ev["data"].(map[string]any)
		if matchValue(ts, data[args[2]], args[3]) {
			found = true
			break
		}
	}
	if found == neg {
		ts.Fatalf("no %s event with %s %s (found=%v) in %s", args[1], args[2], args[3], found, args[0])
	}
}

func matchValue(ts *testscript.TestScript, v any, want string) bool {
	if strings.HasPrefix(want, "<") || strings.HasPrefix(want, ">") {
		n, ok := v.(float64)
		lim, err := strconv.ParseFloat(want[1:], 64)
		ts.Check(err)
		return ok && (want[0] == '<' && n < lim || want[0] == '>' && n > lim)
	}
	got, _ := json.Marshal(v)
	return string(got) == want
}

// cmdEventTypes asserts the exact sequence of event types, in order:
//
//	event-types events.jsonl run_started iteration_completed run_completed
func cmdEventTypes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: event-types file type...")
	}
	var got []string
	for _, ev := range readEvents(ts, args[0]) {
		got = append(got, ev["type"].(string))
	}
	if slices.Equal(got, args[1:]) == neg {
		ts.Fatalf("event types = %v, want %v", got, args[1:])
	}
}

var (
	hexRun    = regexp.MustCompile(`^[0-9a-f]{32}$`)
	stampRe   = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	volatiles = []string{"duration_ms", "call_duration_ms", "ttft_ms", "generation_ms", "llm_duration_ms", "tokens_per_second", "generation_tokens_per_second"}
)

// cmdEventsNormalize writes a copy of an events file with run ids and
// timestamps replaced by placeholders (after checking their shape) and the
// timing fields, which vary run to run and may be omitted when zero, removed,
// so it can be compared with a golden file:
//
//	events-normalize events.jsonl normalized.jsonl
func cmdEventsNormalize(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: events-normalize in out")
	}
	var b strings.Builder
	for i, ev := range readEvents(ts, args[0]) {
		if id, _ := ev["run_id"].(string); !hexRun.MatchString(id) {
			ts.Fatalf("event %d: run_id %q is not 32 hex", i+1, id)
		}
		if st, _ := ev["timestamp"].(string); !stampRe.MatchString(st) {
			ts.Fatalf("event %d: timestamp %q is not RFC 3339 UTC", i+1, st)
		}
		ev["run_id"], ev["timestamp"] = "RUN", "TIME"
		if data, ok := ev["data"].(map[string]any); ok {
			for _, k := range volatiles {
				delete(data, k)
			}
		}
		line, err := json.Marshal(ev)
		ts.Check(err)
		b.Write(line)
		b.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// cmdSchemaCheck validates every JSON value of a file (JSON Lines, or one
// indented document) against one of the published schemas in docs/schema,
// with the real validator (formats asserted):
//
//	schema-check ev.jsonl event
//	schema-check report.json run-report
//	schema-check tools.json tools
func cmdSchemaCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: schema-check file event|run-report|tools")
	}
	sch, err := publishedSchema(args[1])
	ts.Check(err)
	raw, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	dec := json.NewDecoder(bytes.NewReader(raw))
	n := 0
	for {
		var doc any
		start := dec.InputOffset()
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			ts.Fatalf("%s: value %d is not JSON: %v", args[0], n+1, err)
		}
		n++
		if err := sch.Validate(doc); err != nil {
			ts.Fatalf("%s: value %d does not match the %s schema: %v\n%s", args[0], n, args[1], err, raw[start:dec.InputOffset()])
		}
	}
	if n == 0 {
		ts.Fatalf("%s holds no JSON value", args[0])
	}
	ts.Logf("%d value(s) of %s match the %s schema", n, args[0], args[1])
}

var (
	schemasMu sync.Mutex
	schemas   = map[string]*jsonschema.Schema{}
)

// schemaDir is docs/schema: relative to the package in the test process,
// from the environment in the scripts' odek processes (which run in $WORK).
func schemaDir() string {
	if d := os.Getenv(schemaDirEnv); d != "" {
		return d
	}
	return filepath.Join("..", "..", "docs", "schema")
}

// schemaDirEnv carries the absolute docs/schema into the scripts.
const schemaDirEnv = "STREAMCHECK_SCHEMA_DIR"

// publishedSchema compiles docs/schema/<name>.schema.json once per process;
// compiling also checks the schema against its metaschema.
func publishedSchema(name string) (*jsonschema.Schema, error) {
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if s, ok := schemas[name]; ok {
		return s, nil
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(filepath.Join(schemaDir(), name+".schema.json"))
	if err != nil {
		return nil, err
	}
	schemas[name] = s
	return s, nil
}

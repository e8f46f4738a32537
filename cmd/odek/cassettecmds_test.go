package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSameEventTypes asserts two events files hold the same event types in
// the same order, run by run: the parent's events in order, and each
// sub-agent's (by its goal's place among the spawns) in order, since
// parallel children interleave differently every time.
//
//	same-event-types recorded.jsonl replayed.jsonl
func cmdSameEventTypes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: same-event-types a.jsonl b.jsonl")
	}
	a, b := eventTypesByRun(ts, args[0]), eventTypesByRun(ts, args[1])
	if slices.Equal(a, b) == neg {
		ts.Fatalf("event types differ:\n%s:\n  %s\n%s:\n  %s", args[0], strings.Join(a, "\n  "), args[1], strings.Join(b, "\n  "))
	}
}

// eventTypesByRun is one line per run: the top-level run's types first,
// then each task's, sorted (task ids differ between runs; their types do
// not). A sub-agent's events are unwrapped from their subagent_event
// (DECISION 28) at any depth: where they arrive among the parent's depends
// on the children's timing.
func eventTypesByRun(ts *testscript.TestScript, file string) []string {
	byTask := map[string][]string{}
	var add func(ev map[string]any)
	add = func(ev map[string]any) {
		if ev["type"] == "subagent_event" {
			data, _ := ev["data"].(map[string]any)
			if inner, ok := data["event"].(map[string]any); ok {
				add(inner)
			}
			return
		}
		task, _ := ev["task_id"].(string)
		byTask[task] = append(byTask[task], ev["type"].(string))
	}
	for _, ev := range readEvents(ts, file) {
		add(ev)
	}
	var children []string
	for task, types := range byTask {
		if task != "" {
			children = append(children, fmt.Sprint(types))
		}
	}
	sort.Strings(children)
	return append([]string{fmt.Sprint(byTask[""])}, children...)
}

// reportVolatiles are the run-report fields two faithful runs differ in.
var reportVolatiles = []string{"run_id", "duration_ms", "llm_duration_ms", "ttft_ms", "generation_ms", "tokens_per_second", "generation_tokens_per_second"}

// cmdSameReport asserts two run reports are equal but for their run ids
// and timings: same-report recorded.json replayed.json
func cmdSameReport(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: same-report a.json b.json")
	}
	read := func(file string) string {
		var rep map[string]any
		ts.Check(json.Unmarshal([]byte(ts.ReadFile(file)), &rep))
		for _, k := range reportVolatiles {
			delete(rep, k)
		}
		b, err := json.MarshalIndent(rep, "", "  ")
		ts.Check(err)
		return string(b)
	}
	a, b := read(args[0]), read(args[1])
	if (a == b) == neg {
		ts.Fatalf("reports differ:\n%s:\n%s\n%s:\n%s", args[0], a, args[1], b)
	}
}

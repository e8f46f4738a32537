package main

import (
	"slices"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSameEventTypes asserts two events files hold the same event types in
// the same order: same-event-types recorded.jsonl replayed.jsonl
func cmdSameEventTypes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: same-event-types a.jsonl b.jsonl")
	}
	types := func(file string) []string {
		var out []string
		for _, ev := range readEvents(ts, file) {
			out = append(out, ev["type"].(string))
		}
		return out
	}
	a, b := types(args[0]), types(args[1])
	if slices.Equal(a, b) == neg {
		ts.Fatalf("event types differ:\n%s: %v\n%s: %v", args[0], a, args[1], b)
	}
}

package main

import (
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdWaitCount waits until a file holds a substring n times or more:
// a run's n-th heartbeat, say.
//
//	wait-count ev.jsonl '"type":"run_heartbeat"' 3
func cmdWaitCount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: wait-count file substring n")
	}
	waitCount(ts, args[0], args[1], atoi(ts, args[2]))
}

// cmdEventGaps asserts that consecutive events of a type are at least ms
// milliseconds apart (by their timestamps): heartbeats come at their
// interval, not faster.
//
//	event-gaps ev.jsonl run_heartbeat 900
func cmdEventGaps(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: event-gaps file type ms")
	}
	least := time.Duration(atoi(ts, args[2])) * time.Millisecond
	var prev time.Time
	for _, ev := range readEvents(ts, args[0]) {
		if ev["type"] != args[1] {
			continue
		}
		s, _ := ev["timestamp"].(string)
		at, err := time.Parse(time.RFC3339Nano, s)
		ts.Check(err)
		if !prev.IsZero() && at.Sub(prev) < least {
			ts.Fatalf("%s events %v apart, want at least %v", args[1], at.Sub(prev), least)
		}
		prev = at
	}
}

func atoi(ts *testscript.TestScript, s string) int {
	n, err := strconv.Atoi(s)
	ts.Check(err)
	return n
}

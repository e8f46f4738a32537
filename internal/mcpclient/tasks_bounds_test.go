package mcpclient

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A task's poll interval is the server's, held within pollMin..pollMax: a
// server that says 0 (or 20 ms) does not get a busy loop of tasks/get, one
// that says an hour does not stall the call for it.
func TestTaskPollIntervalBounds(t *testing.T) {
	t.Parallel()
	ms := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		in   *float64
		want time.Duration
	}{
		{nil, pollDefault},
		{ms(0), pollMin},
		{ms(-5), pollMin},
		{ms(20), pollMin},
		{ms(1000), time.Second},
		{ms(3_600_000), pollMax},
	} {
		tw := taskWire{PollIntervalMs: tt.in}
		if got := tw.pollInterval(); got != tt.want {
			t.Errorf("pollIntervalMs %v: %v, want %v", fmtMs(tt.in), got, tt.want)
		}
	}
}

func fmtMs(v *float64) string {
	if v == nil {
		return "absent"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// A task id odek keeps and sends back in every poll is 1 to 512 bytes; a
// task without a status is refused too.
func TestParseTaskBounds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id, status string
		ok         bool
	}{
		{"t", "working", true},
		{strings.Repeat("x", maxTaskIDLen), "working", true},
		{strings.Repeat("x", maxTaskIDLen+1), "working", false},
		{"", "working", false},
		{"t", "", false},
	} {
		raw, _ := json.Marshal(map[string]any{"taskId": tt.id, "status": tt.status})
		if _, err := parseTask(raw); (err == nil) != tt.ok {
			t.Errorf("task id of %d bytes, status %q: %v, want ok=%v", len(tt.id), tt.status, err, tt.ok)
		}
	}
}

// A server whose tasks/get answers for another task than the one asked
// about fails the call (and the task is cancelled): odek does not take
// another task's status or result for its call's.
func TestTaskPollAnsweredForAnotherTask(t *testing.T) {
	t.Parallel()
	c, _ := taskClient(t, ServerConfig{}, false)
	_, err := taskCall(c, "imposter", `{"ms":10}`, 10*time.Second)
	if !strings.Contains(fmt.Sprint(err), "answered task task-of-someone-else") {
		t.Fatalf("poll answered for another task: %v", err)
	}
}

// The fixture's tasks ask for a poll every 20 ms; odek waits pollMin
// between polls all the same, so a 600 ms task is polled a few times, not
// thirty.
func TestTaskPollsAtMostEveryPollMin(t *testing.T) {
	t.Parallel()
	c, _ := taskClient(t, ServerConfig{}, false)
	start := time.Now()
	r, err := taskCall(c, "slow", `{"ms":600}`, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`done after (\d+) polls`).FindStringSubmatch(r.Text)
	if m == nil {
		t.Fatalf("result %q", r.Text)
	}
	polls, _ := strconv.Atoi(m[1])
	// Each poll waits at least pollMin, so the polls the elapsed time allows
	// bound them (one more: the wait before the first is also pollMin).
	if most := int(time.Since(start)/pollMin) + 1; polls > most {
		t.Errorf("%d polls in %v: more than one per %v", polls, time.Since(start).Round(time.Millisecond), pollMin)
	}
}

package subagent

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestForwardedEvent(t *testing.T) {
	parent := strings.Repeat("b", 32)
	ok := `{"schema":"odek.event/v1","type":"run_started","run_id":"` + strings.Repeat("a", 32) + `","timestamp":"2026-01-01T00:00:00Z"}`
	ev := forwardedEvent([]byte(ok), parent, "task-0123456789abcdef")
	if ev == nil || ev["parent_run_id"] != parent || ev["task_id"] != "task-0123456789abcdef" {
		t.Fatalf("%+v", ev)
	}
	deeper := strings.Replace(ok, `"timestamp"`, `"parent_run_id":"`+strings.Repeat("c", 32)+`","task_id":"task-1111111111111111","timestamp"`, 1)
	if ev := forwardedEvent([]byte(deeper), parent, "task-0123456789abcdef"); ev == nil || ev["parent_run_id"] != strings.Repeat("c", 32) || ev["task_id"] != "task-1111111111111111" {
		t.Fatalf("links rewritten: %+v", ev)
	}
	// Whole: fields the parent does not know, and numbers beyond float64's
	// precision, are kept as the child wrote them.
	extra := strings.Replace(ok, `"timestamp"`, `"later":{"x":[1,2]},"data":{"n":12345678901234567890},"timestamp"`, 1)
	ev = forwardedEvent([]byte(extra), parent, "t")
	b, _ := json.Marshal(ev)
	if !strings.Contains(string(b), `"later":{"x":[1,2]}`) || !strings.Contains(string(b), `"n":12345678901234567890`) {
		t.Fatalf("not whole: %s", b)
	}
	for _, bad := range []string{
		`{}`, `not json`,
		strings.Replace(ok, "odek.event/v1", "odek.event/v2", 1),
		strings.Replace(ok, strings.Repeat("a", 32), parent, 1), // claims to be the parent
		strings.Replace(ok, "run_started", "Run Started", 1),
		strings.Replace(ok, `,"timestamp":"2026-01-01T00:00:00Z"`, "", 1),
		// Exact keys only: encoding/json would take these for the envelope's.
		strings.Replace(ok, `"schema"`, `"sChemA"`, 1),
		strings.Replace(ok, `"run_id"`, `"RUN_ID"`, 1),
		// Well-formed optional fields, as the event schema wants them.
		strings.Replace(ok, "00:00:00Z", "00:00:00+02:00", 1),
		strings.Replace(ok, `"timestamp"`, `"parent_run_id":"x","timestamp"`, 1),
		strings.Replace(ok, `"timestamp"`, `"task_id":7,"timestamp"`, 1),
		strings.Replace(ok, `"timestamp"`, `"iteration":0,"timestamp"`, 1),
		strings.Replace(ok, `"timestamp"`, `"iteration":1.5,"timestamp"`, 1),
		strings.Replace(ok, `"timestamp"`, `"tool":"","timestamp"`, 1),
		strings.Replace(ok, `"timestamp"`, `"data":[1],"timestamp"`, 1),
		`null`,
	} {
		if forwardedEvent([]byte(bad), parent, "t") != nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// FuzzForwardedEvent: a child's relayed bytes never crash the parent, and
// what is taken is an event of another run, whole, that encodes again.
func FuzzForwardedEvent(f *testing.F) {
	parent := strings.Repeat("b", 32)
	f.Add([]byte(`{"schema":"odek.event/v1","type":"run_started","run_id":"` + strings.Repeat("a", 32) + `","timestamp":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"schema":"odek.event/v1","type":"subagent_event","run_id":"` + strings.Repeat("a", 32) +
		`","timestamp":"2026-01-01T00:00:00Z","data":{"task_id":"task-0123456789abcdef","event":{"n":1e400}}}`))
	f.Add([]byte(`{"schema":"odek.event/v1","type":"x","run_id":"` + parent + `","timestamp":"2026-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ev := forwardedEvent(raw, parent, "task-0123456789abcdef")
		if ev == nil {
			return
		}
		if ev["run_id"] == parent || ev["schema"] != "odek.event/v1" || ev["parent_run_id"] == nil || ev["task_id"] == nil {
			t.Fatalf("took %v", ev)
		}
		if _, err := json.Marshal(ev); err != nil {
			t.Fatalf("does not encode again: %v", err)
		}
	})
}

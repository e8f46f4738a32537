package events

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSubagentRunStampsParentAndTask(t *testing.T) {
	sink := &recordSink{}
	parent := "0123456789abcdef0123456789abcdef"
	e := NewEmitter(Options{Sinks: []Sink{sink}, ParentRunID: parent, TaskID: "task-0123456789abcdef"})
	e.Emit(RunStarted, 0, "", nil)
	closeOK(t, e)
	got := sink.all()
	if len(got) != 1 || got[0].ParentRunID != parent || got[0].TaskID != "task-0123456789abcdef" {
		t.Fatalf("%+v", got)
	}
	b, _ := json.Marshal(got[0])
	if !strings.Contains(string(b), `"parent_run_id":"`+parent+`","task_id":"task-0123456789abcdef"`) {
		t.Fatalf("wire form: %s", b)
	}
	// A top-level run has neither field on the wire.
	b, _ = json.Marshal(Event{Schema: Schema, Type: RunStarted, RunID: parent})
	if strings.Contains(string(b), "parent_run_id") || strings.Contains(string(b), "task_id") {
		t.Fatalf("top level: %s", b)
	}
}

// TestSubagentEventRedactsTheChildsEvent: a child's event travels whole
// inside its parent's subagent_event, and every string of it, at any depth,
// is redacted on delivery like the parent's own.
func TestSubagentEventRedactsTheChildsEvent(t *testing.T) {
	sink := &recordSink{}
	e := NewEmitter(Options{RunID: strings.Repeat("a", 32), Sinks: []Sink{sink}, Redact: func(s string) string {
		return strings.ReplaceAll(s, "sk-secret", "[REDACTED]")
	}})
	child := map[string]any{"schema": Schema, "type": "tool_call_failed", "run_id": strings.Repeat("c", 32),
		"tool": "sk-secret", "data": map[string]any{"note": "sk-secret", "n": json.Number("12345678901234567890")}}
	e.Emit(SubagentEvent, 0, "delegate_tasks", map[string]any{"task_id": "task-0123456789abcdef", "event": child})
	closeOK(t, e)
	got := sink.all()
	if len(got) != 1 {
		t.Fatalf("%d events", len(got))
	}
	b, _ := json.Marshal(got[0])
	want := `"data":{"event":{"data":{"n":12345678901234567890,"note":"[REDACTED]"},"run_id":"` + strings.Repeat("c", 32) +
		`","schema":"odek.event/v1","tool":"[REDACTED]","type":"tool_call_failed"},"task_id":"task-0123456789abcdef"}`
	if !strings.Contains(string(b), want) || got[0].RunID != strings.Repeat("a", 32) || got[0].Type != SubagentEvent {
		t.Fatalf("wire form: %s\nwant %s", b, want)
	}
	if child["tool"] != "sk-secret" {
		t.Error("the caller's map was redacted in place")
	}
}

package events

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
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

func TestForwardKeepsTheChildsIdentityAndRedacts(t *testing.T) {
	sink := &recordSink{}
	e := NewEmitter(Options{RunID: strings.Repeat("a", 32), Sinks: []Sink{sink}, Redact: func(s string) string {
		return strings.ReplaceAll(s, "sk-secret", "[REDACTED]")
	}})
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e.Forward(&Event{Type: ToolCallFailed, RunID: strings.Repeat("c", 32), ParentRunID: strings.Repeat("a", 32),
		Timestamp: ts, Tool: "t", Data: map[string]any{"note": "sk-secret"}})
	e.Forward(nil)
	var nilE *Emitter
	nilE.Forward(&Event{})
	closeOK(t, e)
	got := sink.all()
	if len(got) != 1 {
		t.Fatalf("%d events", len(got))
	}
	ev := got[0]
	if ev.Schema != Schema || ev.RunID != strings.Repeat("c", 32) || !ev.Timestamp.Equal(ts) || ev.Data["note"] != "[REDACTED]" {
		t.Fatalf("%+v", ev)
	}
}

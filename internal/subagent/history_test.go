package subagent

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
)

func TestFromHistory(t *testing.T) {
	call := []llm.ToolCall{{ID: "1", Function: llm.FunctionCall{Name: "write_file"}}}
	hist := []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"},
		{Role: llm.RoleUser, Content: "Task: x"},
		{Role: llm.RoleAssistant, Content: "working", ToolCalls: call},
		{Role: llm.RoleTool, Name: "write_file", Content: "┌── TOOL RESULT ──┐\nwrote /w/a.txt (12 bytes)\ncreated /w/b.txt\nwrote /w/a.txt\npatched c.go: replaced lines 3-3\n└──┘"},
		{Role: llm.RoleAssistant, ToolCalls: call},
		{Role: llm.RoleTool, Name: "shell", Content: "error: operation denied by configuration: curl example.com (risk: network_egress)"},
		{Role: llm.RoleAssistant, Content: "All done."},
	}
	var r Result
	FromHistory(&r, hist, "")
	want := Result{
		Summary: "All done.", Iterations: 2, FilesChanged: []string{"/w/a.txt", "/w/b.txt", "c.go"},
		Denials:      []Denial{{Tool: "shell", Class: "network_egress", Reason: "operation denied by configuration: curl example.com (risk: network_egress)"}},
		DenialsTotal: 1,
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatalf("FromHistory (-want +got):\n%s", diff)
	}
}

func TestFromHistorySummaryCap(t *testing.T) {
	var r Result
	FromHistory(&r, nil, strings.Repeat("x", MaxSummaryRunes+5))
	if !r.SummaryTruncated || r.SummaryRunes != MaxSummaryRunes+5 || !strings.HasSuffix(r.Summary, "…") || len([]rune(r.Summary)) != MaxSummaryRunes+1 {
		t.Fatalf("truncated=%v runes=%d len=%d", r.SummaryTruncated, r.SummaryRunes, len([]rune(r.Summary)))
	}
}

func TestLineWriter(t *testing.T) {
	var b bytes.Buffer
	lw := NewLineWriter(&b, "task-0123456789abcdef", true)
	lw.Send(Line{Type: LineStarted, PID: 5, Depth: 1})
	_ = lw.Write(&events.Event{Schema: events.Schema, Type: events.RunStarted, RunID: strings.Repeat("a", 32), Timestamp: time.Unix(0, 0)})
	lw.Result(&Result{Status: StatusSuccess, Summary: "s"})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if lines[0] != `{"type":"subagent_started","task_id":"task-0123456789abcdef","pid":5,"depth":1}` {
		t.Errorf("started: %s", lines[0])
	}
	if k, l, _ := ParseLine([]byte(lines[1])); k != KindTelemetry || l.Type != LineEvent || forwardedEvent(l.Event, strings.Repeat("b", 32), "task-x") == nil {
		t.Errorf("event line: %s", lines[1])
	}
	if k, _, r := ParseLine([]byte(lines[2])); k != KindResult || r.Summary != "s" {
		t.Errorf("result: %s", lines[2])
	}
	// Without streaming: only the bare result object.
	b.Reset()
	lw = NewLineWriter(&b, "task-0123456789abcdef", false)
	lw.Send(Line{Type: LineStarted})
	lw.Result(&Result{Status: StatusError, Error: "e"})
	if got := b.String(); got != `{"status":"error","error":"e","summary":"","tokens_used":0,"iterations":0,"duration_seconds":0}`+"\n" {
		t.Fatalf("plain: %s", got)
	}
}

func TestForwardedEvent(t *testing.T) {
	parent := strings.Repeat("b", 32)
	ok := `{"schema":"odek.event/v1","type":"run_started","run_id":"` + strings.Repeat("a", 32) + `","timestamp":"2026-01-01T00:00:00Z"}`
	ev := forwardedEvent([]byte(ok), parent, "task-0123456789abcdef")
	if ev == nil || ev.ParentRunID != parent || ev.TaskID != "task-0123456789abcdef" {
		t.Fatalf("%+v", ev)
	}
	deeper := strings.Replace(ok, `"timestamp"`, `"parent_run_id":"`+strings.Repeat("c", 32)+`","task_id":"task-1111111111111111","timestamp"`, 1)
	if ev := forwardedEvent([]byte(deeper), parent, "task-0123456789abcdef"); ev == nil || ev.ParentRunID != strings.Repeat("c", 32) || ev.TaskID != "task-1111111111111111" {
		t.Fatalf("grandchild event re-parented: %+v", ev)
	}
	for _, bad := range []string{
		`{}`, `not json`,
		strings.Replace(ok, "odek.event/v1", "odek.event/v2", 1),
		strings.Replace(ok, strings.Repeat("a", 32), parent, 1), // claims to be the parent
		strings.Replace(ok, "run_started", "Run Started", 1),
		strings.Replace(ok, `,"timestamp":"2026-01-01T00:00:00Z"`, "", 1),
	} {
		if forwardedEvent([]byte(bad), parent, "t") != nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

package childside

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/subagent/wire"
)

func TestLineWriter(t *testing.T) {
	var b bytes.Buffer
	lw := NewLineWriter(&b, "task-0123456789abcdef", true)
	lw.Send(wire.Line{Type: wire.LineStarted, PID: 5, Depth: 1})
	_ = lw.Write(&events.Event{Schema: events.Schema, Type: events.RunStarted, RunID: strings.Repeat("a", 32), Timestamp: time.Unix(0, 0)})
	lw.Result(&wire.Result{Status: wire.StatusSuccess, Summary: "s"})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if lines[0] != `{"type":"subagent_started","task_id":"task-0123456789abcdef","pid":5,"depth":1}` {
		t.Errorf("started: %s", lines[0])
	}
	// The parent's reader takes the lines apart again.
	var got []*wire.Line
	s, err := wire.ReadStream(strings.NewReader(b.String()), wire.StreamLimits{}, func(l *wire.Line) { got = append(got, l) })
	if err != nil || len(got) != 2 {
		t.Fatalf("read: %v, %d telemetry lines", err, len(got))
	}
	var ev events.Event
	if got[1].Type != wire.LineEvent || json.Unmarshal(got[1].Event, &ev) != nil || ev.Schema != events.Schema || ev.RunID != strings.Repeat("a", 32) {
		t.Errorf("event line: %s", lines[1])
	}
	if s.Result == nil || s.Result.Summary != "s" {
		t.Errorf("result: %s", lines[2])
	}
	// Without streaming: only the bare result object.
	b.Reset()
	lw = NewLineWriter(&b, "task-0123456789abcdef", false)
	lw.Send(wire.Line{Type: wire.LineStarted})
	lw.Result(&wire.Result{Status: wire.StatusError, Error: "e"})
	if got := b.String(); got != `{"status":"error","error":"e","summary":"","tokens_used":0,"iterations":0,"duration_seconds":0}`+"\n" {
		t.Fatalf("plain: %s", got)
	}
}

package subagent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// A child's lines are signs of life for the parent's stall watchdog, and
// the call reports the subagent phase; a child's heartbeat is no progress
// (the child is alive, which says nothing about getting anywhere).
func TestChildLinesAreProgress(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var stamp time.Time
	mon := liveness.New(func() time.Time {
		if stamp.IsZero() {
			return start
		}
		return stamp
	})
	span := mon.Begin(liveness.Activity{Phase: liveness.PhaseTool, Tool: ToolName, CallID: "c1"})
	tool, _, _, _ := fakeTool(t, `{"type":"progress","step":1}`+"\n"+`{"type":"result","result":{"status":"success","summary":"ok"}}`+"\n", nil)
	stamp = start.Add(time.Hour) // a sign of life during the call is stamped an hour on
	call(t, tool, liveness.With(context.Background(), span), `{"tasks":[{"goal":"g"}]}`)
	stamp = start.Add(2 * time.Hour)
	if since := mon.Status().SinceProgress; since != time.Hour {
		t.Errorf("no progress from the child's lines (since %v)", since)
	}
	if a := span.Activity(); a.Phase != liveness.PhaseSubagent {
		t.Errorf("phase %q", a.Phase)
	}
	child := strings.Repeat("c", 32)
	for _, tc := range []struct {
		line string
		beat bool
	}{
		{`{"type":"event","event":{"schema":"odek.event/v1","type":"run_heartbeat","run_id":"` + child + `","timestamp":"2026-01-01T00:00:00Z"}}`, true},
		{`{"type":"event","event":{"schema":"odek.event/v1","type":"tool_call_started","run_id":"` + child + `","timestamp":"2026-01-01T00:00:00Z"}}`, false},
		{`{"type":"progress","step":2}`, false},
	} {
		var l wire.Line
		if err := json.Unmarshal([]byte(tc.line), &l); err != nil {
			t.Fatal(err)
		}
		if heartbeat(&l) != tc.beat {
			t.Errorf("%s: heartbeat %t", tc.line, !tc.beat)
		}
	}
}

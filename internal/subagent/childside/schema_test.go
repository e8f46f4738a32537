package childside

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestPublishedSchema: what LineWriter writes matches
// docs/schema/subagent.schema.json, and the schema refuses what a child
// never writes (the testscripts validate every real child's stdout too).
func TestPublishedSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile("../../../docs/schema/subagent.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	cost := 0.25
	ok := &wire.Result{Status: wire.StatusSuccess, Summary: "done", TokensUsed: 12, Iterations: 1, DurationSeconds: 0.5,
		CostUSD: &cost, Usage: &wire.Usage{InputTokens: 10, OutputTokens: 2, ToolCalls: 1},
		Output: json.RawMessage(`{"todos":3}`), FilesChanged: []string{"a.go"},
		Denials: []wire.Denial{{Tool: "shell", Class: "network_egress", Reason: "operation denied by configuration: curl"}}, DenialsTotal: 1}
	var out strings.Builder
	w := NewLineWriter(&out, "task-0123456789abcdef", true)
	w.Send(wire.Line{Type: wire.LineStarted, PID: 42, Depth: 1, TimeoutS: 60, MaxIter: 5})
	w.Send(wire.Line{Type: wire.LineToolCall, Name: "read_file"})
	w.Send(wire.Line{Type: wire.LineFinished, Status: wire.StatusSuccess, Iterations: 1, TokensUsed: 12})
	w.Result(ok)
	NewLineWriter(&out, "", false).Result(&wire.Result{Status: wire.StatusError, Error: "either --goal or --task is required"})
	for i, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if err := sch.Validate(decode(t, line)); err != nil {
			t.Errorf("line %d %s: %v", i+1, line, err)
		}
	}
	bad := map[string]string{
		"error without error text":      `{"status":"error","summary":"","tokens_used":0,"iterations":0,"duration_seconds":0}`,
		"error with output":             `{"status":"error","error":"x","output":1,"summary":"","tokens_used":0,"iterations":0,"duration_seconds":0}`,
		"budget without reason":         `{"status":"budget_exhausted","error":"x","summary":"","tokens_used":0,"iterations":0,"duration_seconds":0}`,
		"execution reason, not budget":  `{"status":"partial","partial_reason":"execution_budget","summary":"","tokens_used":0,"iterations":0,"duration_seconds":0}`,
		"parent-only status":            `{"status":"killed_flood","summary":"","tokens_used":0,"iterations":0,"duration_seconds":0}`,
		"no summary":                    `{"status":"success","tokens_used":0,"iterations":0,"duration_seconds":0}`,
		"result line without result":    `{"type":"result","task_id":"task-0123456789abcdef"}`,
		"result line with a bad result": `{"type":"result","result":{"status":"success"}}`,
		"unknown line type":             `{"type":"hello"}`,
		"bad task id":                   `{"type":"tool_call","task_id":"../x","name":"t"}`,
		"event line with a non-event":   `{"type":"event","event":{"type":"run_started"}}`,
	}
	for name, doc := range bad {
		if err := sch.Validate(decode(t, doc)); err == nil {
			t.Errorf("%s: accepted %s", name, doc)
		}
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

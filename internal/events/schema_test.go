package events

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/odek-run/odek/internal/errclass"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

const fixedRunID = "0123456789abcdef0123456789abcdef"

// fixedClock ticks 1.5 ms per call from a fixed instant in a non-UTC zone,
// which also checks that timestamps are written in UTC.
func fixedClock() func() time.Time {
	t := time.Date(2026, 8, 7, 14, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	return func() time.Time {
		t = t.Add(1500 * time.Microsecond)
		return t
	}
}

type emitted struct {
	t    Type
	iter int
	tool string
	data map[string]any
}

// everyType is a plausible run that uses each event type once or more.
func everyType() []emitted {
	args := []byte(`{"command":"FOO=1 /usr/bin/go test ./..."}`)
	return []emitted{
		{RunStarted, 0, "", map[string]any{"model": "gpt-test", "sandbox": true, "sandbox_policy": map[string]any{"mode": "workspace-write", "landlock_abi": 7, "seccomp": true, "network": "off"}, "max_iterations": 20,
			"mcp_servers": []map[string]any{{"server": "fs", "transport": "stdio", "era": "modern", "protocol_version": "2026-07-28", "tools": 14}}}},
		{ToolCallStarted, 1, "shell", map[string]any{"call_id": "call_1", "args_sha256": ArgsSHA256(args),
			"args_bytes": len(args), "args_summary": map[string]any{"argv0": Argv0("FOO=1 /usr/bin/go test ./..."), "class": "safe"}}},
		{ToolCallStarted, 1, "fs__read", map[string]any{"call_id": "it1-call1",
			"args_sha256": ArgsSHA256([]byte(`{}`)), "args_bytes": 2, "args_summary": map[string]any{"keys": []string{}}}},
		{ToolCallCompleted, 1, "shell", map[string]any{"call_id": "call_1", "duration_ms": 412, "result_bytes": 812, "artifact_count": 1,
			"command": "FOO=1 /usr/bin/go test ./...", "exit_code": 1}},
		{RunHeartbeat, 1, "", map[string]any{"phase": "tool", "running": []map[string]any{
			{"phase": "tool", "tool": "shell", "call_id": "call_1", "detail": "go test ./...", "iteration": 1, "running_ms": 30000},
			{"phase": "tool", "tool": "fs__read", "call_id": "it1-call1", "server": "fs", "iteration": 1, "running_ms": 29000}},
			"since_progress_ms": 12000, "elapsed_ms": 95000, "input_tokens": 1200, "output_tokens": 80}},
		{MCPProgress, 1, "fs__read", map[string]any{"server": "fs", "progress": 3, "total": 10, "message": "reading"}},
		{MCPInput, 1, "fs__read", map[string]any{"server": "fs", "method": "elicitation/create", "outcome": "declined", "reason": "no values configured"}},
		{MCPServerSkipped, 0, "", map[string]any{"server": "extra", "reason": "mcp server \"extra\": server exited (exit status 1)"}},
		{MCPTask, 1, "jobs__build", map[string]any{"server": "jobs", "task_id": "786512e2", "status": "working", "message": "compiling"}},
		{MCPServerRestarted, 1, "", map[string]any{"server": "fs", "restart": 1, "restart_limit": 1, "reason": "server exited (signal: killed)"}},
		{MCPServerLost, 1, "", map[string]any{"server": "fs", "restarts": 1, "restart_limit": 1,
			"reason": "server exited (exit status 3); not started again: it was already restarted 1 time(s) this run (restart_limit=1)"}},
		{ToolCallFailed, 1, "fs__read", map[string]any{"call_id": "it1-call1", "duration_ms": 3, "error_class": errclass.ToolError,
			"error": "mcpclient fs: tool read returned error: no such file"}},
		{LoopHint, 1, "fs__read", map[string]any{"kind": "mcp_error", "count": 3, "call_id": "it1-call1"}},
		{HookStarted, 1, "shell", map[string]any{"event": "PostToolUse", "matcher": "Bash", "hook_type": "command",
			"command": "./hooks/audit.sh", "origin": "operator"}},
		{HookCompleted, 1, "shell", map[string]any{"event": "PostToolUse", "matcher": "Bash", "hook_type": "command",
			"command": "./hooks/audit.sh", "origin": "operator", "decision": "none", "exit_code": 0, "duration_ms": 4}},
		{ModelFallback, 1, "", map[string]any{"from": "gpt-4o", "to": "gpt-4o-mini", "error": "HTTP 503: overloaded"}},
		{IterationCompleted, 1, "", map[string]any{"input_tokens": 1200, "output_tokens": 80, "tools_called": 2,
			"call_duration_ms": 900, "ttft_ms": 120, "tokens_per_second": 88.9}},
		{SessionSaved, 1, "", map[string]any{"message_count": 6}},
		{ContextTrimmed, 2, "", map[string]any{"mode": "proactive", "dropped_groups": 1, "truncated_results": 2}},
		{PlanCreated, 0, "", map[string]any{"steps": 3, "version": 1}},
		{PlanUpdated, 0, "", map[string]any{"steps": 3, "done": 1, "in_progress": 1, "blocked": 0, "pending": 1, "version": 2}},
		{PlanBlocked, 0, "", map[string]any{"steps": 3, "blocked": 1, "version": 5}},
		{SubagentConcurrencyWait, 2, "delegate_tasks", map[string]any{"task_index": 3, "waited_ms": 5012}},
		{SubagentSpawned, 2, "delegate_tasks", map[string]any{"task_id": "task-0011223344556677", "pid": 4242,
			"depth": 1, "timeout_seconds": 600, "goal_sha256": "00112233aabbccdd"}},
		{SubagentDenied, 2, "delegate_tasks", map[string]any{"task_index": 0, "class": "network_egress", "reason": "denied by configuration"}},
		{SubagentCompleted, 2, "delegate_tasks", map[string]any{"task_id": "task-0011223344556677", "status": "success",
			"iterations": 4, "duration_seconds": 12.5, "tokens_used": 5300, "artifact_count": 0}},
		{SubagentEvent, 2, "delegate_tasks", map[string]any{"task_id": "task-0011223344556677", "event": map[string]any{
			"schema": Schema, "type": "run_failed", "run_id": "00112233445566778899aabbccddeeff", "parent_run_id": fixedRunID,
			"task_id": "task-0011223344556677", "iteration": 2, "timestamp": "2026-08-07T14:00:01.5Z",
			"data": map[string]any{"duration_ms": 900, "error_class": errclass.ExecutionBudget}}}},
		{SideCallUsage, 2, "", map[string]any{"kind": "main_partial", "input_tokens": 900, "output_tokens": 60, "cache_read": 0, "cache_create": 0}},
		{BudgetExceeded, 3, "", map[string]any{"limit_name": "cost_usd", "observed": 0.012345, "limit": 0.01, "unit": "usd"}},
		{RunFailed, 3, "", map[string]any{"duration_ms": 5100, "error_class": errclass.ExecutionBudget, "llm_duration_ms": 3000, "tokens_per_second": 40.5}},
		{StallDetected, 3, "shell", map[string]any{"phase": "tool", "tool": "shell", "call_id": "call_ab12", "detail": "npm test",
			"iteration": 3, "idle_ms": 600000, "limit_ms": 600000, "running": 1}},
		{RunFailed, 3, "", map[string]any{"duration_ms": 605100, "error_class": errclass.Stalled}},
		{LoopDetected, 3, "shell", map[string]any{"tool": "shell", "kind": "repeat", "count": 10, "limit": 10, "call_id": "call_9", "detail": "gh run view"}},
		{RunFailed, 3, "", map[string]any{"duration_ms": 5100, "error_class": errclass.LoopDetected}},
		{RunCompleted, 0, "", map[string]any{"duration_ms": 5100, "input_tokens": 2100, "output_tokens": 140, "llm_duration_ms": 3000}},
	}
}

// TestGoldenEveryType emits every type through a JSONL sink, compares the file
// with testdata/every_type.golden.jsonl and validates each line against
// docs/schema/event.schema.json.
func TestGoldenEveryType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	sink, err := OpenJSONL(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	em := NewEmitter(Options{RunID: fixedRunID, Sinks: []Sink{sink}, Now: fixedClock()})
	seen := map[Type]bool{}
	for i, e := range everyType() {
		if i == 3 {
			em.SetSessionID("20260807-140000-abcd")
		}
		em.Emit(e.t, e.iter, e.tool, e.data)
		seen[e.t] = true
	}
	if err := em.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	for _, typ := range Types {
		if !seen[typ] {
			t.Errorf("golden sequence lacks %s", typ)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "testdata/every_type.golden.jsonl", got)
	validateLines(t, loadSchema(t, "../../docs/schema/event.schema.json"), got, len(everyType()))
}

func compareGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (run with -update after checking):\n%s", golden, got)
	}
}

func validateLines(t *testing.T, v *jsonschema.Schema, data []byte, wantLines int) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		var doc any
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if err := v.Validate(doc); err != nil {
			t.Errorf("line %d: %v", n, err)
		}
	}
	if n != wantLines {
		t.Fatalf("%d lines, want %d", n, wantLines)
	}
}

func TestRunReportSchema(t *testing.T) {
	v := loadSchema(t, "../../docs/schema/run-report.schema.json")
	good := `{"schema":"odek.run-report/v1","status":"budget_exhausted","termination_reason":"execution_budget",
		"exit_code":4,"run_id":"` + fixedRunID + `","session_id":"s1","model":"m","iterations":3,
		"input_tokens":10,"output_tokens":5,"cost_usd":0.0123,"budgets":{"cost_usd":{"limit":0.01,"used":0.0123,"unit":"usd"}},
		"budget_exceeded":{"limit_name":"cost_usd","observed":0.0123,"limit":0.01,"unit":"usd"},
		"tool_calls":{"ok":2,"failed":1,"denied":0},"duration_ms":5100,"llm_duration_ms":3000,
		"error":"execution budget exceeded: cost_usd observed $0.012300 (limit $0.010000)"}`
	noExceeded := strings.Replace(good, `"budget_exceeded":{"limit_name":"cost_usd","observed":0.0123,"limit":0.01,"unit":"usd"},`, "", 1)
	badUnit := strings.Replace(good, `"used":0.0123,"unit":"usd"`, `"used":0.0123,"unit":"dollars"`, 1)
	bad := `{"schema":"odek.run-report/v1","status":"success","termination_reason":"answer","exit_code":7,
		"run_id":"x","model":"m","iterations":1,"input_tokens":1,"output_tokens":1,
		"tool_calls":{"ok":0,"failed":0},"duration_ms":1}`
	const sum = `"output_schema_sha256":"` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `"`
	head := `{"schema":"odek.run-report/v1","termination_reason":"completed","run_id":"` + fixedRunID +
		`","model":"m","iterations":1,"input_tokens":1,"output_tokens":1,"tool_calls":{"ok":0,"failed":0,"denied":0},"duration_ms":1,`
	withOutput := head + `"status":"success","exit_code":0,"output":{"verdict":"pass"},` + sum + `}`
	scalarOutput := head + `"status":"partial","exit_code":0,"output":null,` + sum + `}`
	noOutput := head + `"status":"success","exit_code":0,` + sum + `}`                                           // matched, so output is required
	failedNoOutput := head + `"status":"error","exit_code":1,"error":"final answer does not match",` + sum + `}` // no output: fine
	outputNoSum := head + `"status":"success","exit_code":0,"output":1}`
	for _, tc := range []struct {
		doc     string
		wantErr bool
	}{{good, false}, {bad, true}, {noExceeded, true}, {badUnit, true}, {withOutput, false}, {scalarOutput, false}, {noOutput, true}, {failedNoOutput, false}, {outputNoSum, true}} {
		var doc any
		if err := json.Unmarshal([]byte(tc.doc), &doc); err != nil {
			t.Fatal(err)
		}
		err := v.Validate(doc)
		if (err != nil) != tc.wantErr {
			t.Errorf("validate = %v, wantErr %v", err, tc.wantErr)
		}
	}
}

// TestEnvelopeOmitsZeroFields checks the JSON shape directly.
func TestEnvelopeOmitsZeroFields(t *testing.T) {
	ts := time.Date(2026, 8, 7, 12, 0, 0, 123456789, time.FixedZone("X", -3600))
	b, err := json.Marshal(Event{Schema: Schema, Type: RunStarted, RunID: fixedRunID, Timestamp: ts})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":"odek.event/v1","type":"run_started","run_id":"` + fixedRunID +
		`","timestamp":"2026-08-07T13:00:00.123456789Z"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil || back.Type != RunStarted || !back.Timestamp.Equal(ts) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

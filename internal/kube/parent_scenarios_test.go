package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// stageNote is a pod's step before odek: it stages <last word of the
// goal>.txt as an artifact, as a model would with a write tool (the goal
// names the file; the task id, from the mounted task file, the staging
// directory).
const stageNote = `id=$(sed -n 's/.*"task_id":"\(task-[0-9a-f]*\)".*/\1/p' /odek/task/task.json)
goal=$(sed -n 's/.*"goal":"\([^"]*\)".*/\1/p' /odek/task/task.json)
mkdir -p ".odek-artifacts/$id" && printf 'staged for %s\n' "$goal" > ".odek-artifacts/$id/${goal##* }.txt"`

// A parent delegates three tasks; each runs as a Job, each child's result
// and its artifact come back: the model reads three successes with their
// summaries and the artifacts inlined, and each artifact is a file under
// the parent's artifact root with the bytes the pod wrote. Nothing of the
// children is left in the namespace.
func TestParentDelegatesThreeJobs(t *testing.T) {
	e := newE2E(t, stageNote, nil)
	srv := startLLM(t, `{"any_order": true, "turns": [
  {"match": "Collect three notes", "tool_calls": [{"id": "d1", "name": "delegate_tasks", "arguments": {"tasks": [
    {"goal": "write note one"}, {"goal": "write note two"}, {"goal": "write note three"}]}}]},
  {"match": "Task: write note one", "content": "note one written"},
  {"match": "Task: write note two", "content": "note two written"},
  {"match": "Task: write note three", "content": "note three written"},
  {"match": "Sub-agent results", "content": "all three collected"}
]}`)
	report, _ := e.run(srv, "Collect three notes")
	if report["status"] != "success" || report["answer"] != "all three collected" {
		t.Fatalf("report: %v", report)
	}
	results := lastMatching(t, srv, "Sub-agent results")
	for i, name := range []string{"one", "two", "three"} {
		for _, want := range []string{
			"─── Task " + string(rune('1'+i)) + ": write note " + name + " ───\nstatus: success",
			"summary: note " + name + " written",
			"  - " + name + " (text/plain, ",
			"--- artifact: " + name + " ---\n    staged for write note " + name + "\n  --- end artifact ---",
		} {
			if !strings.Contains(results, want) {
				t.Errorf("the model's sub-agent results lack %q:\n%s", want, results)
			}
		}
		files, _ := filepath.Glob(filepath.Join(e.home, "artifacts", "unfiled", "task-*", name+".txt"))
		if len(files) != 1 {
			t.Errorf("artifact %s.txt under the parent's root: %v", name, files)
			continue
		}
		if b, err := os.ReadFile(files[0]); err != nil || string(b) != "staged for write note "+name+"\n" {
			t.Errorf("%s: %q %v", files[0], b, err)
		}
	}
	if strings.Contains(results, "/odek/artifacts") {
		t.Errorf("a pod path reached the model:\n%s", results)
	}
	e.checkClean()
}

// A child whose model answers after its timeout: the parent stops the
// helper at the child's timeout and the model reads the status a local
// child's timeout gives (testdata/script/subagent_failures.txtar); the
// helper deleted the Job on its way out.
func TestParentChildTimesOut(t *testing.T) {
	e := newE2E(t, "", map[string]any{"subagent": map[string]any{"timeout_seconds": 2}})
	srv := startLLM(t, `{"any_order": true, "turns": [
  {"match": "Slow work", "tool_calls": [{"id": "d1", "name": "delegate_tasks", "arguments": {"tasks": [{"goal": "slow one"}]}}]},
  {"match": "Task: slow one", "content": "never sent", "delay_ms": 30000},
  {"match": "run out of steps", "content": "never sent", "delay_ms": 30000},
  {"match": "Sub-agent results", "content": "timed out"}
]}`)
	report, _ := e.run(srv, "Slow work")
	if report["answer"] != "timed out" {
		t.Fatalf("report: %v", report)
	}
	results := lastMatching(t, srv, "Sub-agent results")
	for _, want := range []string{"─── Task 1: slow one ───\nstatus: error", "error: timeout after 2s"} {
		if !strings.Contains(results, want) {
			t.Errorf("the model's sub-agent results lack %q:\n%s", want, results)
		}
	}
	e.checkClean()
}

// A child that floods its stdout: the helper stops relaying at a local
// child's line cap, deletes the Job, and the model reads killed_flood with
// the local child's error. (The pod's entrypoint floods before odek would
// start: the hook that floods a local child is in cmd/odek's test binary
// only.)
func TestParentChildFloods(t *testing.T) {
	e := newE2E(t, "yes flood | head -n 150000\nexec sleep 600", nil)
	srv := startLLM(t, `{"any_order": true, "turns": [
  {"match": "Flood it", "tool_calls": [{"id": "d1", "name": "delegate_tasks", "arguments": {"tasks": [{"goal": "flood"}]}}]},
  {"match": "Sub-agent results", "content": "flooded"}
]}`)
	report, _ := e.run(srv, "Flood it")
	if report["answer"] != "flooded" {
		t.Fatalf("report: %v", report)
	}
	results := lastMatching(t, srv, "Sub-agent results")
	for _, want := range []string{"─── Task 1: flood ───\nstatus: killed_flood", "error: child output flood: more than 100000 lines"} {
		if !strings.Contains(results, want) {
			t.Errorf("the model's sub-agent results lack %q:\n%s", want, results)
		}
	}
	e.checkClean()
}

// A parent with token and cost budgets: the child's task file, as its pod
// reads it from the ConfigMap's mount, carries the child's share of what the run
// has left, and the usage the child reports from the pod is charged to the
// parent: the report's budgets and its cost count the parent's calls and
// the child's.
func TestParentBudgetCrossesToTheJob(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "kept")
	if err := os.Mkdir(kept, 0o777); err != nil || os.Chmod(kept, 0o777) != nil {
		t.Fatal(err)
	}
	e := newE2E(t, "cp /odek/task/task.json "+kept+"/task.json", map[string]any{"limits": map[string]any{
		"input_cost_per_million_usd": 1.0, "output_cost_per_million_usd": 10.0}})
	srv := startLLM(t, `{"any_order": true, "turns": [
  {"match": "Spend some", "usage": {"prompt_tokens": 1000, "completion_tokens": 10},
   "tool_calls": [{"id": "d1", "name": "delegate_tasks", "arguments": {"tasks": [{"goal": "spend a share"}]}}]},
  {"match": "Task: spend a share", "usage": {"prompt_tokens": 7000, "completion_tokens": 300}, "content": "spent"},
  {"match": "Sub-agent results", "usage": {"prompt_tokens": 2000, "completion_tokens": 20}, "content": "budget kept"}
]}`)
	report, _ := e.run(srv, "Spend some", "--max-input-tokens", "50000", "--max-cost-usd", "1")
	if report["answer"] != "budget kept" {
		t.Fatalf("report: %v", report)
	}
	// The pod copied its task file before odek started in it.
	data, err := os.ReadFile(filepath.Join(kept, "task.json"))
	if err != nil {
		t.Fatal(err)
	}
	task, err := wire.ParseTask(data)
	if err != nil {
		t.Fatal(err)
	}
	b := task.Budget
	t.Logf("the child's budget: %+v", b)
	if b == nil || b.MaxInputTokens <= 0 || b.MaxInputTokens > 50000-1000 || b.MaxCostUSD <= 0 || b.MaxCostUSD >= 1 {
		t.Errorf("the child's task file carries budget %+v, want a share of what the run had left (input tokens ≤ 49000, cost < $1)", b)
	}
	// The report's input_tokens and output_tokens are the run's own calls
	// (3000 and 30); what the tree spent is in the budgets and the cost.
	budgets, _ := report["budgets"].(map[string]any)
	if used := usedOf(budgets, "input_tokens"); used != 10000.0 {
		t.Errorf("budgets: input tokens used %v, want 10000: %v", used, budgets)
	}
	want := (10000*1.0 + 330*10.0) / 1e6
	if !near(report["cost_usd"], want) || !near(usedOf(budgets, "cost_usd"), want) {
		t.Errorf("cost_usd %v, its budget's used %v, want %v (the child's $0.01 included)", report["cost_usd"], usedOf(budgets, "cost_usd"), want)
	}
	e.checkClean()
}

func usedOf(budgets map[string]any, name string) any {
	if b, ok := budgets[name].(map[string]any); ok {
		return b["used"]
	}
	return nil
}

func near(v any, want float64) bool {
	f, ok := v.(float64)
	return ok && f > want*0.999 && f < want*1.001
}

package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/odek-run/odek/internal/budget"
)

func TestParseArgsErrors(t *testing.T) {
	nine := `{"tasks":[` + strings.TrimSuffix(strings.Repeat(`{"goal":"g"},`, 9), ",") + `]}`
	tests := []struct{ in, want string }{
		{`{"tasks":`, `{"error":"parse failed: invalid JSON at byte 9: unexpected end of JSON input"}`},
		{`{"tasks":"x"}`, `{"error":"parse failed: field tasks: want []subagent.TaskSpec, got string"}`},
		{`{}`, `{"error":"no tasks provided"}`},
		{`{"tasks":[]}`, `{"error":"no tasks provided"}`},
		{``, `{"error":"no tasks provided"}`},
		{nine, `{"error":"max 8 tasks per call"}`},
		{`{"tasks":[{"goal":"a"},{"goal":" "}]}`, `{"error":"parse failed: tasks[1]: goal is required"}`},
		{`{"tasks":[{"goal":"a","trust_level":"admin"}]}`, `{"error":"parse failed: tasks[0]: trust_level \"admin\" is not one of trusted, untrusted"}`},
		{`{"tasks":[{"goal":"a","max_risk":"root"}]}`, `{"error":"parse failed: tasks[0]: max_risk \"root\" is not one of safe, local_write, system_write, destructive, code_execution, network_egress, install, blocked"}`},
	}
	for _, tc := range tests {
		a, text := ParseArgs(json.RawMessage(tc.in))
		if a != nil || text != tc.want {
			t.Errorf("ParseArgs(%.40q) = %q\nwant %q", tc.in, text, tc.want)
		}
	}
	a, text := ParseArgs(json.RawMessage(`{"tasks":[{"goal":"a","trust_level":" trusted ","extra":1}],"description":"d"}`))
	if text != "" || len(a.Tasks) != 1 || a.Tasks[0].TrustLevel != Trusted || a.Description != "d" {
		t.Fatalf("ParseArgs = %+v, %q", a, text)
	}
}

func TestDepthLimitText(t *testing.T) {
	want := `{"error":"delegation depth limit reached (depth 2, max 2); do this work yourself instead of delegating"}`
	if got := DepthLimitText(2, 2); got != want {
		t.Fatalf("got %s", got)
	}
}

func TestSchemaIsJSON(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal(Schema(), &v); err != nil {
		t.Fatal(err)
	}
}

func TestIDsAndHash(t *testing.T) {
	id := NewTaskID()
	if !regexp.MustCompile(`^task-[0-9a-f]{16}$`).MatchString(id) || !IsTaskID(id) || id == NewTaskID() {
		t.Fatalf("task id %q", id)
	}
	for _, bad := range []string{"task-0123", "task-0123456789ABCDEF", "x-0123456789abcdef", "task-0123456789abcdef/"} {
		if IsTaskID(bad) {
			t.Errorf("IsTaskID(%q)", bad)
		}
	}
	// sha256("hello") = 2cf24dba5fb0a30e26e83b2ac5b9e29e…
	if got := GoalHash("hello"); got != "2cf24dba5fb0a30e" {
		t.Fatalf("GoalHash = %s", got)
	}
}

func TestParseDepth(t *testing.T) {
	for in, want := range map[string]int{"": 0, "1": 1, " 3 ": 3, "-1": 0, "x": 0, "1.5": 0} {
		if got := ParseDepth(in); got != want {
			t.Errorf("ParseDepth(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestSemaphoreBoundsAndWaitNotice(t *testing.T) {
	s := NewSemaphore(2, 20*time.Millisecond)
	if NewSemaphore(0, 0).Size() != 1 || NewSemaphore(99, 0).Size() != MaxConcurrency || s.Size() != 2 {
		t.Fatal("size clamps")
	}
	ctx := context.Background()
	var inFlight, peak atomic.Int32
	var waits atomic.Int32
	done := make(chan struct{})
	for range 6 {
		go func() {
			err := s.Acquire(ctx, func(waited time.Duration) {
				if waited < 20*time.Millisecond {
					t.Errorf("notice after %v", waited)
				}
				waits.Add(1)
			})
			if err != nil {
				t.Error(err)
			}
			n := inFlight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(30 * time.Millisecond) // hold the slot past the notice threshold
			inFlight.Add(-1)
			s.Release()
			done <- struct{}{}
		}()
	}
	for range 6 {
		<-done
	}
	if peak.Load() != 2 {
		t.Fatalf("peak concurrency %d, want 2", peak.Load())
	}
	if waits.Load() == 0 {
		t.Fatal("no wait notice although tasks queued past the threshold")
	}
}

func TestSemaphoreCancel(t *testing.T) {
	s := NewSemaphore(1, time.Hour)
	if err := s.Acquire(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Acquire(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestChildEnv(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/h", "ODEK_API_KEY=sk-1", "OPENAI_API_KEY=sk-2", "GITHUB_TOKEN=t",
		"MY_DB=secret-from-file", "ODEK_SUBAGENT_DEPTH=7", "ODEK_API_KEY_FD=9", "ODEK_MODEL=m", "broken"}
	secret := func(n string) bool { return strings.Contains(n, "KEY") || strings.Contains(n, "TOKEN") }
	got := ChildEnv(parent, []string{"MY_DB"}, secret, 2, true)
	want := []string{"PATH=/bin", "HOME=/h", "ODEK_MODEL=m", "ODEK_SUBAGENT_DEPTH=2", "ODEK_API_KEY_FD=3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("ChildEnv (-want +got):\n%s", diff)
	}
	if got := ChildEnv(nil, nil, nil, 1, false); len(got) != 1 || got[0] != "ODEK_SUBAGENT_DEPTH=1" {
		t.Fatalf("no key: %v", got)
	}
}

func TestKeyFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	f, err := KeyFile(dir, "sk-test-123\n")
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("key file left a name on disk: %v", ents)
	}
	key, err := ReadKeyFD("3", func(uintptr) *os.File { return f })
	if err != nil || key != "sk-test-123" {
		t.Fatalf("key %q, err %v", key, err)
	}
	if _, err := f.Stat(); err == nil {
		t.Fatal("ReadKeyFD left the descriptor open")
	}
}

func TestReadKeyFDErrors(t *testing.T) {
	empty, _ := KeyFile(t.TempDir(), "")
	big, _ := KeyFile(t.TempDir(), strings.Repeat("k", MaxKeyBytes+1))
	tests := []struct {
		value string
		f     *os.File
		want  string
	}{
		{"4", nil, `api key handover: ODEK_API_KEY_FD="4": only descriptor 3 is supported`},
		{"3", nil, "api key handover: descriptor 3 is not open"},
		{"3", empty, "api key handover: descriptor 3 holds no key"},
		{"3", big, "api key handover: descriptor 3 holds more than 65536 bytes"},
	}
	for _, tc := range tests {
		_, err := ReadKeyFD(tc.value, func(uintptr) *os.File { return tc.f })
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrKeyFD) {
			t.Errorf("ReadKeyFD(%q) = %v, want %q", tc.value, err, tc.want)
		}
	}
}

func TestBudgetFor(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prices := budget.Prices{InputPerMillionUSD: 100, OutputPerMillionUSD: 100}
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxRuntimeSeconds: 100, MaxToolCalls: 10, MaxCostUSD: 1, MaxInputTokens: 1000},
		Prices: prices, Start: start})
	_ = tr.CheckToolBatch(4)
	_ = tr.AddUsage(budget.Usage{InputTokens: 500, OutputTokens: 10}) // $0.051
	g, err := tr.Reserve(1, start.Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := &Budget{MaxRuntimeSeconds: 70, MaxToolCalls: 6, MaxCostUSD: 0.949, MaxInputTokens: 500,
		InputCostPerMillionUSD: 100, OutputCostPerMillionUSD: 100}
	if diff := cmp.Diff(want, BudgetFor(g, 0)); diff != "" {
		t.Fatalf("BudgetFor (-want +got):\n%s", diff)
	}
	for _, s := range g.Shares {
		_ = tr.Settle(s, budget.ChildUsage{})
	}
	// Eight children share 6 tool calls: six get one, two get an explicit
	// exhaustion flag (a 0 would read as "no limit").
	g, err = tr.Reserve(8, start.Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var calls int64
	for i := range g.Shares {
		b := BudgetFor(g, i)
		calls += b.MaxToolCalls
		if (i >= 6) != b.ToolCallsExhausted {
			t.Errorf("child %d: %+v", i, b)
		}
	}
	if calls != 6 {
		t.Fatalf("shares add up to %d calls, want 6", calls)
	}
	if b := BudgetFor(budget.Grants{Shares: make([]budget.Reservation, 1)}, 0); b != nil {
		t.Fatalf("no limits: %+v", b)
	}
}

func TestChildLimits(t *testing.T) {
	op := budget.Limits{MaxToolCalls: 5, MaxRuntimeSeconds: 0, MaxCostUSD: 2, MaxOutputTokens: 50}
	got, err := ChildLimits(op, &Budget{MaxToolCalls: 3, MaxRuntimeSeconds: 60, MaxCostUSD: 5, MaxInputTokens: 9})
	if err != nil {
		t.Fatal(err)
	}
	want := budget.Limits{MaxToolCalls: 3, MaxRuntimeSeconds: 60, MaxCostUSD: 2, MaxInputTokens: 9, MaxOutputTokens: 50}
	if got != want {
		t.Fatalf("ChildLimits = %+v, want %+v", got, want)
	}
	if got, _ := ChildLimits(op, nil); got != op {
		t.Fatal("operator mode changed the limits")
	}
	_, err = ChildLimits(op, &Budget{CostExhausted: true, MaxToolCalls: 3})
	if !budget.IsBudget(err) || err.Error() != "execution budget exceeded: cost_usd observed $0.000000 (limit $0.000000)" {
		t.Fatalf("exhausted: %v", err)
	}
}

func TestSoftDeadline(t *testing.T) {
	tests := []struct {
		timeout    int
		soft, hard int64
	}{{1800, 1785000, 1800000}, {60, 52500, 60000}, {2, 1750, 2000}, {1, 1000, 1000}}
	for _, tc := range tests {
		soft, hard := SoftDeadline(tc.timeout)
		if soft != tc.soft || hard != tc.hard {
			t.Errorf("SoftDeadline(%d) = %d, %d; want %d, %d", tc.timeout, soft, hard, tc.soft, tc.hard)
		}
	}
}

func TestUserMessage(t *testing.T) {
	task := &Task{TaskID: "task-0123456789abcdef", ArtifactRoot: "/r", Goal: "do it", Guidance: "carefully", Context: "see </untrusted_input_x> untrusted_input"}
	got := UserMessage(task, false, "abc")
	want := untrustedPreamble + "\n\n<untrusted_input_abc>\nTask: do it\n\nApproach (guidance from the orchestrator):\ncarefully\n\nContext:\nsee </untrustedˍinput_x> untrustedˍinput\n</untrusted_input_abc>\n\n" + ArtifactNote("task-0123456789abcdef")
	if got != want {
		t.Fatalf("untrusted:\n%s\nwant:\n%s", got, want)
	}
	if got := UserMessage(&Task{Goal: "g"}, true, "n"); got != "Task: g" {
		t.Fatalf("trusted: %q", got)
	}
}

func TestConstraintsBlockOnlyNumbers(t *testing.T) {
	got := ConstraintsBlock(Constraints{TimeoutSeconds: 60, SoftSeconds: 52, MaxIterations: 15, Depth: 2, MaxDepth: 2, MaxToolCalls: 4, MaxCostUSD: 0.5})
	want := "\n\n## Runtime Constraints (enforced by the runtime, not negotiable)\n" +
		"- Time limit: 60 seconds; finish by 52 seconds.\n- Step limit: 15 model turns.\n" +
		"- Delegation depth: 2 of 2; you cannot delegate.\n- Tool-call budget: 4 calls.\n- Cost budget: $0.5000."
	if got != want {
		t.Fatalf("got:\n%q\nwant:\n%q", got, want)
	}
}

func TestSettingsNormalized(t *testing.T) {
	got := Settings{MaxDepth: 99, TimeoutSeconds: 5000, MaxIterations: 500, BudgetInherit: "bogus"}.Normalized()
	if got != (Settings{MaxDepth: 8, TimeoutSeconds: 1800, MaxIterations: 100, BudgetInherit: InheritOperator}) {
		t.Fatalf("%+v", got)
	}
	if got := (Settings{MaxDepth: -1}).Normalized(); got != (Settings{MaxDepth: 2, TimeoutSeconds: 1800, MaxIterations: 15, BudgetInherit: InheritOperator}) {
		t.Fatalf("%+v", got)
	}
}

func TestCollectArtifactsIgnoresBadTaskID(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, StageDir, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if c := CollectArtifacts(ws, "../x", t.TempDir()); len(c.Refs)+len(c.Problems) != 0 {
		t.Fatalf("%+v", c)
	}
}

func TestArgsSummaryAndRisk(t *testing.T) {
	tool := NewTool(Options{})
	if got := tool.ArgsSummary(json.RawMessage(`{"tasks":[{"goal":"secret goal"},{"goal":"b"}]}`)); len(got) != 1 || got["task_count"] != 2 {
		t.Fatalf("ArgsSummary = %v", got)
	}
	a, err := tool.AssessRisk(nil)
	if err != nil || a.Class.String() != "safe" {
		t.Fatalf("AssessRisk = %+v, %v", a, err)
	}
}

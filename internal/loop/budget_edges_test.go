package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/llm"
)

// The per-call max_tokens is Options.MaxTokens lowered to what the output
// budget has left, never raised by it, and never 0 once the budget binds.
func TestMaxTokensClampWithPerCallCap(t *testing.T) {
	tests := []struct {
		name        string
		perCall     int
		outputLimit int64 // 0 = no output budget
		used        int64
		want        int
		clamped     bool
	}{
		{"no budget, no cap", 0, 0, 0, 0, false},
		{"no budget", 500, 0, 0, 500, false},
		{"budget only", 0, 1000, 0, 1000, true},
		{"budget below the cap", 500, 1000, 600, 400, true},
		{"budget equal to the cap", 500, 1000, 500, 500, false},
		{"budget one above the cap", 500, 1000, 499, 500, false},
		{"budget one below the cap", 500, 1000, 501, 499, true},
		{"budget above the cap", 500, 10_000, 0, 500, false},
		{"budget spent", 500, 1000, 1000, 1, true}, // never 0: 0 would mean the provider default
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr *budget.Tracker
			if tt.outputLimit > 0 {
				tr = budget.New(budget.Options{Limits: budget.Limits{MaxOutputTokens: tt.outputLimit}, Start: time.Now()})
				if tt.used > 0 {
					_ = tr.AddUsage(budget.Usage{OutputTokens: tt.used})
				}
			}
			r := &runner{o: Options{MaxTokens: tt.perCall, Budget: tr}}
			got, clamped := r.maxTokens()
			if got != tt.want || clamped != tt.clamped {
				t.Fatalf("maxTokens() = %d, %v; want %d, %v", got, clamped, tt.want, tt.clamped)
			}
		})
	}
}

// The runtime budget is checked before every model call on the tracker's
// own clock, also when ctx carries no deadline.
func TestRuntimeCheckedBeforeEachCall(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxRuntimeSeconds: 5}, Start: start})
	echo := funcTool{name: "echo", fn: func(context.Context, json.RawMessage) (string, error) {
		now = start.Add(6 * time.Second) // the first batch took too long
		return "ok", nil
	}}
	m := turns(callTools(1, 1, tc("c1", "echo", `{}`)), answer("never reached", 1, 1))
	_, err := Run(context.Background(), Options{Model: m, Tools: mustRegistry(t, echo), Budget: tr, Now: func() time.Time { return now }}, "go")
	var be *budget.Error
	if !errors.As(err, &be) || be.Limit != budget.LimitRuntime {
		t.Fatalf("err = %v, want the runtime budget", err)
	}
	// The failure names the iterations done (one, the
	// second stopped before its model call).
	if want := "time budget reached after 1 iteration without final answer: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want it to start with %q", err, want)
	}
	if len(m.reqs) != 1 {
		t.Fatalf("%d model calls, want 1: the second must not start", len(m.reqs))
	}
}

// A response that exhausts a budget is kept in the history only when it
// has no tool calls (a tool call without its result would dangle).
func TestBudgetStopKeepsHistoryWhole(t *testing.T) {
	for _, withCalls := range []bool{false, true} {
		t.Run(fmt.Sprint("tool calls ", withCalls), func(t *testing.T) {
			tr := budget.New(budget.Options{Limits: budget.Limits{MaxOutputTokens: 10}, Start: time.Now()})
			turn := answer("a final answer", 1, 50)
			if withCalls {
				turn = callTools(1, 50, tc("c1", "echo", `{}`))
			}
			echo := funcTool{name: "echo", fn: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}
			res, err := Run(context.Background(), Options{Model: turns(turn), Tools: mustRegistry(t, echo), Budget: tr}, "go")
			if !budget.IsBudget(err) {
				t.Fatalf("err = %v, want a budget stop", err)
			}
			assertNoDangling(t, res.History)
			last := res.History[len(res.History)-1]
			if kept := last.Role == llm.RoleAssistant; kept == withCalls {
				t.Errorf("last message %+v: the over-budget reply kept = %v, want %v", last, kept, !withCalls)
			}
		})
	}
}

func TestIsInterrupted(t *testing.T) {
	runtime := &budget.Error{Limit: budget.LimitRuntime, Observed: 5, Max: 5}
	tests := []struct {
		err  error
		want bool
	}{
		{context.Canceled, true},
		{fmt.Errorf("iteration 2: %w", context.Canceled), true},
		{fmt.Errorf("%w: %w", runtime, context.Canceled), false}, // a budget deadline, not the user
		{runtime, false},
		{context.DeadlineExceeded, false},
		{errors.New("model error"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := IsInterrupted(tt.err); got != tt.want {
			t.Errorf("IsInterrupted(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// The summary side call sees each message cut to summarySnippet bytes on a
// rune boundary, and at most summaryMessages of them.
func TestSummarySnippets(t *testing.T) {
	exact := strings.Repeat("a", summarySnippet)
	if got := snippet(exact); got != exact {
		t.Errorf("a message of exactly %d bytes was cut", summarySnippet)
	}
	long := strings.Repeat("a", summarySnippet+1)
	if got := snippet(long); got != exact+" …" {
		t.Errorf("one byte over: %d bytes kept", len(got))
	}
	multi := strings.Repeat("a", summarySnippet-1) + "世界" // a rune straddles the cut
	if got := snippet(multi); !utf8.ValidString(got) || got != strings.Repeat("a", summarySnippet-1)+" …" {
		t.Errorf("cut inside a rune: %q", got[len(got)-8:])
	}
	binary := strings.Repeat("\x80", summarySnippet+1) // no rune start anywhere
	if got := snippet(binary); got != " …" {
		t.Errorf("invalid UTF-8: %q", got)
	}
	hist := make([]llm.Message, summaryMessages+1)
	for i := range hist {
		hist[i] = llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("m%03d", i)}
	}
	body := summaryMessagesFor(hist, "", "", 0)[0].Content
	if strings.Contains(body, "m000") || !strings.Contains(body, "m001") || !strings.Contains(body, fmt.Sprintf("m%03d", summaryMessages)) {
		t.Errorf("transcript does not hold exactly the last %d messages", summaryMessages)
	}
}

func TestTimeToFirstTokenAverage(t *testing.T) {
	reply := func(ttft time.Duration) func(llm.Request) (*llm.Response, error) {
		return func(llm.Request) (*llm.Response, error) {
			return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{tc("", "echo", `{}`)}},
				Timing: llm.Timing{TimeToFirstToken: ttft}}, nil
		}
	}
	echo := funcTool{name: "echo", fn: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}
	m := turns(reply(100*time.Millisecond), reply(0), reply(300*time.Millisecond), answer("done", 1, 1))
	res, err := Run(context.Background(), Options{Model: m, Tools: mustRegistry(t, echo)}, "go")
	if err != nil {
		t.Fatal(err)
	}
	// Calls that reported no first-token time do not count.
	if res.TimeToFirstToken != 200*time.Millisecond {
		t.Fatalf("TimeToFirstToken = %v, want the mean of 100ms and 300ms", res.TimeToFirstToken)
	}
}

// A run that answers after a sub-agent's charge-back took it past a limit
// ends with that budget error, not with its answer (issue 18).
func TestChargedBackOverrunFailsTheAnswer(t *testing.T) {
	tr := budget.New(budget.Options{Limits: budget.Limits{MaxToolCalls: 3}, Start: time.Now()})
	child := funcTool{name: "delegate", fn: func(context.Context, json.RawMessage) (string, error) {
		_ = tr.AddChild(budget.ChildUsage{ToolCalls: 40}) // what a child charged back
		return "done", nil
	}}
	m := turns(callTools(1, 1, tc("c1", "delegate", `{}`)), answer("all good", 1, 1))
	res, err := Run(context.Background(), Options{Model: m, Tools: mustRegistry(t, child), Budget: tr, MaxIterations: 5}, "go")
	var be *budget.Error
	if !errors.As(err, &be) || be.Limit != budget.LimitToolCalls || be.Observed != 41 {
		t.Fatalf("err = %v, want the tool_calls budget at 41", err)
	}
	if res.Answer != "all good" {
		t.Fatalf("answer = %q: the answer is kept for the report", res.Answer)
	}
}

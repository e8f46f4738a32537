package loop

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
)

// reply answers with msg and finish reason fr.
func reply(msg llm.Message, fr string, out int64) func(llm.Request) (*llm.Response, error) {
	return func(llm.Request) (*llm.Response, error) {
		msg.Role = llm.RoleAssistant
		msg.ToolCalls = append([]llm.ToolCall(nil), msg.ToolCalls...)
		return &llm.Response{Message: msg, FinishReason: fr, Usage: llm.Usage{InputTokens: 10, OutputTokens: out, Present: true}}, nil
	}
}

func turns(fs ...func(llm.Request) (*llm.Response, error)) *scriptedModel {
	return &scriptedModel{turns: fs}
}

// runWithEvents runs the loop and returns the events it emitted.
func runWithEvents(t *testing.T, o Options, task string) (*Result, []events.Event, error) {
	t.Helper()
	sink := &memSink{}
	o.Events = events.NewEmitter(events.Options{RunID: "r", Sinks: []events.Sink{sink}})
	res, err := Run(context.Background(), o, task)
	if cerr := o.Events.Close(context.Background()); cerr != nil {
		t.Fatal(cerr)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	return res, append([]events.Event(nil), sink.evs...), err
}

func lastEvent(t *testing.T, evs []events.Event) events.Event {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	return evs[len(evs)-1]
}

func TestCutFinalAnswerIsPartial(t *testing.T) {
	m := turns(reply(llm.Message{Content: "The answer begins and then"}, "length", 50))
	res, err := Run(context.Background(), Options{Model: m}, "q")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopMaxTokens || !res.Partial || res.Answer != "The answer begins and then" {
		t.Fatalf("result = %+v", res)
	}
	if n := len(res.History); n != 2 || res.History[1].Content != res.Answer {
		t.Errorf("history = %+v", res.History)
	}
}

// A reply cut at a max_tokens that the output budget set is a budget stop,
// whether or not the provider's usage reached the limit.
func TestCutAnswerAtBudgetClampIsBudgetStop(t *testing.T) {
	for _, usage := range []struct {
		name string
		u    llm.Usage
	}{{"no usage", llm.Usage{}}, {"usage below", llm.Usage{OutputTokens: 60, Present: true}}, {"usage at limit", llm.Usage{OutputTokens: 100, Present: true}}} {
		t.Run(usage.name, func(t *testing.T) {
			m := turns(func(req llm.Request) (*llm.Response, error) {
				if req.MaxTokens != 100 {
					t.Errorf("max_tokens = %d, want the budget's 100", req.MaxTokens)
				}
				return &llm.Response{Message: llm.Message{Role: "assistant", Content: "cut"}, FinishReason: "length", Usage: usage.u}, nil
			})
			tr := budget.NewTracker(budget.Limits{MaxOutputTokens: 100}, budget.Prices{}, time.Now())
			_, evs, err := runWithEvents(t, Options{Model: m, Budget: tr}, "q")
			var be *budget.Error
			if !errors.As(err, &be) || be.Limit != budget.LimitOutputTokens || be.Max != 100 || be.Observed < 100 {
				t.Fatalf("err = %v, want an output_tokens budget stop", err)
			}
			if last := lastEvent(t, evs); last.Type != events.RunFailed || last.Data["error_class"] != "execution_budget" {
				t.Errorf("last event = %+v", last)
			}
		})
	}
}

func TestCutAnswerWithoutTextIsAnError(t *testing.T) {
	m := turns(reply(llm.Message{ReasoningContent: "thinking all the way"}, "length", 50))
	_, err := Run(context.Background(), Options{Model: m}, "q")
	if !errors.Is(err, ErrEmptyAnswer) || !strings.Contains(err.Error(), `finish_reason "length"`) {
		t.Fatalf("err = %v", err)
	}
	if len(m.reqs) != 1 {
		t.Errorf("a cut reply was asked again: %d requests", len(m.reqs))
	}
}

func TestToolCallCutByLengthReachesModelAsError(t *testing.T) {
	ran := 0
	write := funcTool{"write", func(context.Context, json.RawMessage) (string, error) { ran++; return "written", nil }}
	m := turns(
		reply(llm.Message{ToolCalls: []llm.ToolCall{
			tc("a", "write", `{"path":"x"}`),
			tc("b", "write", `{"path":"y","text":"a long text that never ends`),
		}}, "length", 100),
		answer("done", 1, 1),
	)
	res, evs, err := runWithEvents(t, Options{Model: m, Tools: mustRegistry(t, write)}, "q")
	if err != nil {
		t.Fatal(err)
	}
	if ran != 1 || res.ToolCalls.OK != 1 || res.ToolCalls.Failed != 1 {
		t.Fatalf("ran %d, counts %+v", ran, res.ToolCalls)
	}
	sent := m.reqs[1].Messages
	cut := sent[len(sent)-1]
	if cut.ToolCallID != "b" || !strings.Contains(cut.Content, `error: tool call "write" was cut off: the reply reached the output-token limit (finish_reason "length")`) {
		t.Errorf("cut call's result = %+v", cut)
	}
	if ok := sent[len(sent)-2]; !strings.Contains(ok.Content, "written") {
		t.Errorf("whole call's result = %q", ok.Content)
	}
	var failed int
	for _, e := range evs {
		if e.Type == events.ToolCallFailed && e.Data["call_id"] == "b" && e.Data["error_class"] == "tool_error" {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("tool_call_failed for the cut call: %d", failed)
	}
}

func TestContentFilterIsModelError(t *testing.T) {
	m := turns(reply(llm.Message{Content: ""}, "content_filter", 0))
	_, evs, err := runWithEvents(t, Options{Model: m}, "q")
	var ae *AnswerError
	if !errors.As(err, &ae) || !errors.Is(err, ErrContentFilter) {
		t.Fatalf("err = %v", err)
	}
	if want := `model answer blocked by the provider's content filter: finish_reason "content_filter" (iteration 1)`; err.Error() != want {
		t.Errorf("text = %q, want %q", err.Error(), want)
	}
	if last := lastEvent(t, evs); last.Type != events.RunFailed || last.Data["error_class"] != "provider_error" {
		t.Errorf("last event = %+v", last)
	}
	if len(m.reqs) != 1 {
		t.Errorf("%d requests", len(m.reqs))
	}
}

func TestEmptyReplyAskedAgainOnce(t *testing.T) {
	m := turns(reply(llm.Message{Content: " \n"}, "stop", 3), answer("second try", 10, 2))
	res, err := Run(context.Background(), Options{Model: m}, "q")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "second try" || len(m.reqs) != 2 || res.Iterations != 1 {
		t.Fatalf("answer %q after %d requests, %d iterations", res.Answer, len(m.reqs), res.Iterations)
	}
	if res.Usage.InputTokens != 20 || res.Usage.OutputTokens != 5 {
		t.Errorf("usage = %+v: the empty reply must count", res.Usage)
	}
	if len(m.reqs[1].Messages) != 1 {
		t.Errorf("the empty reply entered the history: %+v", m.reqs[1].Messages)
	}
}

func TestEmptyReplyTwiceFails(t *testing.T) {
	m := turns(reply(llm.Message{}, "stop", 3), reply(llm.Message{}, "stop", 4))
	tr := budget.NewTracker(budget.Limits{MaxOutputTokens: 1000}, budget.Prices{}, time.Now())
	res, evs, err := runWithEvents(t, Options{Model: m, Budget: tr}, "q")
	if !errors.Is(err, ErrEmptyAnswer) || !strings.HasPrefix(err.Error(), "model returned an empty answer: ") {
		t.Fatalf("err = %v", err)
	}
	if res.Answer != "" || len(m.reqs) != 2 {
		t.Errorf("answer %q, %d requests", res.Answer, len(m.reqs))
	}
	if s := tr.Snapshot(); s.OutputTokens != 7 {
		t.Errorf("budget saw %d output tokens, want 7", s.OutputTokens)
	}
	if last := lastEvent(t, evs); last.Type != events.RunFailed || last.Data["error_class"] != "provider_error" {
		t.Errorf("last event = %+v", last)
	}
}

// The budget still stops a run whose empty reply used it up.
func TestEmptyReplyCountsAgainstBudget(t *testing.T) {
	m := turns(reply(llm.Message{}, "stop", 10), answer("never asked", 1, 1))
	tr := budget.NewTracker(budget.Limits{MaxOutputTokens: 10}, budget.Prices{}, time.Now())
	_, err := Run(context.Background(), Options{Model: m, Budget: tr}, "q")
	if !budget.IsBudget(err) || len(m.reqs) != 1 {
		t.Fatalf("err = %v after %d requests", err, len(m.reqs))
	}
}

func TestSyntheticCallIDsNeverRepeat(t *testing.T) {
	ok := funcTool{"ok", func(context.Context, json.RawMessage) (string, error) { return "x", nil }}
	m := turns(
		callTools(1, 1, tc("", "ok", `{}`), tc("", "ok", `{}`)),
		callTools(1, 1, tc("", "ok", `{}`), tc("call_0", "ok", `{}`)),
		callTools(1, 1, tc("call_0", "ok", `{}`), tc("call_0", "ok", `{}`)),
		answer("done", 1, 1),
	)
	res, evs, err := runWithEvents(t, Options{Model: m, Tools: mustRegistry(t, ok)}, "q")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range res.History {
		for _, c := range msg.ToolCalls {
			got = append(got, c.ID)
		}
	}
	want := []string{"it1-call0", "it1-call1", "it2-call0", "call_0", "it3-call0", "it3-call1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("ids = %v, want %v", got, want)
	}
	var started []string
	for _, e := range evs {
		if e.Type == events.ToolCallStarted {
			started = append(started, e.Data["call_id"].(string))
		}
	}
	if strings.Join(started, " ") != strings.Join(want, " ") {
		t.Errorf("tool_call_started ids = %v", started)
	}
	// Each tool message answers its own call.
	for i, msg := range res.History {
		for k, c := range msg.ToolCalls {
			if tm := res.History[i+1+k]; tm.ToolCallID != c.ID {
				t.Errorf("call %s answered by %q", c.ID, tm.ToolCallID)
			}
		}
	}
}

// A continued history's ids are taken: new calls do not reuse them.
func TestSyntheticCallIDsAvoidHistory(t *testing.T) {
	ok := funcTool{"ok", func(context.Context, json.RawMessage) (string, error) { return "x", nil }}
	old := []llm.Message{
		{Role: "user", Content: "q"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{tc("it1-call0", "ok", `{}`)}},
		{Role: "tool", ToolCallID: "it1-call0", Content: "x"},
		{Role: "assistant", Content: "first answer"},
		{Role: "user", Content: "again"},
	}
	m := turns(callTools(1, 1, tc("", "ok", `{}`)), answer("done", 1, 1))
	res, err := Continue(context.Background(), Options{Model: m, Tools: mustRegistry(t, ok)}, Regroup(old))
	if err != nil {
		t.Fatal(err)
	}
	if id := res.History[5].ToolCalls[0].ID; id != "it1-call0-2" {
		t.Errorf("new call id = %q", id)
	}
}

func TestReasoningCountedNotAnswered(t *testing.T) {
	m := turns(func(llm.Request) (*llm.Response, error) {
		return &llm.Response{
			Message:      llm.Message{Role: "assistant", Content: "42", ReasoningContent: "étape par étape"},
			FinishReason: "stop", Usage: llm.Usage{OutputTokens: 9, ReasoningTokens: 7, Present: true},
		}, nil
	})
	res, err := Run(context.Background(), Options{Model: m}, "q")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "42" || res.ReasoningChars != 15 || res.ReasoningTokens != 7 {
		t.Fatalf("answer %q reasoning chars %d tokens %d", res.Answer, res.ReasoningChars, res.ReasoningTokens)
	}
}

func TestRatesNeedAWindow(t *testing.T) {
	cases := []struct {
		name       string
		timing     llm.Timing
		total, gen bool
	}{
		{"one chunk", llm.Timing{Total: 400 * time.Millisecond, TimeToFirstToken: 399 * time.Millisecond, Generation: 50 * time.Microsecond, TokenChunks: 1}, true, false},
		{"sub-millisecond", llm.Timing{Total: 900 * time.Microsecond, Generation: 800 * time.Microsecond, TokenChunks: 30}, false, false},
		{"streamed", llm.Timing{Total: time.Second, TimeToFirstToken: 200 * time.Millisecond, Generation: 800 * time.Millisecond, TokenChunks: 30}, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := turns(func(llm.Request) (*llm.Response, error) {
				return &llm.Response{Message: llm.Message{Role: "assistant", Content: "x"}, FinishReason: "stop",
					Usage: llm.Usage{OutputTokens: 40, Present: true}, Timing: tc.timing}, nil
			})
			res, evs, err := runWithEvents(t, Options{Model: m}, "q")
			if err != nil {
				t.Fatal(err)
			}
			var it events.Event
			for _, e := range evs {
				if e.Type == events.IterationCompleted {
					it = e
				}
			}
			_, total := it.Data["tokens_per_second"]
			_, gen := it.Data["generation_tokens_per_second"]
			if total != tc.total || gen != tc.gen {
				t.Errorf("tokens_per_second %t generation_tokens_per_second %t; data %v", total, gen, it.Data)
			}
			if _, rate := lastEvent(t, evs).Data["tokens_per_second"]; rate != tc.total {
				t.Errorf("run_completed tokens_per_second present = %t", rate)
			}
			if res.TimeToFirstToken != tc.timing.TimeToFirstToken {
				t.Errorf("TimeToFirstToken = %v", res.TimeToFirstToken)
			}
		})
	}
}

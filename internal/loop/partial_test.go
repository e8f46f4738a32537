package loop

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/llm"
)

func TestPartialSummaryAfterAnEarlyStop(t *testing.T) {
	blocked := make(chan struct{})
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(10, 5, tc("c1", "slow", `{}`)),
		answer("I read half of the files.", 7, 3),
	}}
	slow := funcTool{name: "slow", fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		close(blocked)
		<-ctx.Done()
		return "", ctx.Err()
	}}
	reg, _ := NewRegistry(slow)
	tr := budget.NewTracker(budget.Limits{MaxOutputTokens: 100}, budget.Prices{}, time.Now())
	o := Options{Model: m, Tools: reg, Budget: tr, System: "sys"}
	stop := errors.New("soft deadline")
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-blocked; cancel(stop) }()
	res, err := Run(ctx, o, "task")
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
	answer, err := PartialSummary(context.Background(), o, res, TimeBudgetMarker)
	if err != nil {
		t.Fatal(err)
	}
	if answer != TimeBudgetMarker+"\n\nI read half of the files." || res.Answer != answer || !res.Partial || res.Stop != StopEarly {
		t.Fatalf("answer = %q, res = %+v", answer, res)
	}
	if last := res.History[len(res.History)-1]; last.Role != llm.RoleAssistant || last.Content != answer {
		t.Fatalf("last message %+v", last)
	}
	if res.Usage.OutputTokens != 8 || tr.Snapshot().OutputTokens != 8 {
		t.Fatalf("usage %+v, budget %+v", res.Usage, tr.Snapshot())
	}
	req := m.reqs[1]
	if len(req.Tools) != 0 || !strings.Contains(req.Messages[len(req.Messages)-1].Content, "called slow") {
		t.Fatalf("summary request: %+v", req)
	}
}

func TestPartialSummaryFailureKeepsTheResult(t *testing.T) {
	m := &scriptedModel{}
	res := &Result{Answer: "", History: []llm.Message{{Role: llm.RoleUser, Content: "task"}}}
	if _, err := PartialSummary(context.Background(), Options{Model: m}, res, TimeBudgetMarker); err == nil {
		t.Fatal("no error from an exhausted model")
	}
	if res.Partial || len(res.History) != 1 {
		t.Fatalf("res changed: %+v", res)
	}
}

// An early stop's summary keeps the answer contract too: an empty reply is
// asked again once, and twice is an error that leaves res as it was.
func TestPartialSummaryEmpty(t *testing.T) {
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){said("", "stop"), said(" ", "stop")}}
	res := &Result{History: []llm.Message{{Role: llm.RoleUser, Content: "task"}}}
	_, err := PartialSummary(context.Background(), Options{Model: m}, res, TimeBudgetMarker)
	if !errors.Is(err, ErrEmptyAnswer) || len(m.reqs) != 2 {
		t.Fatalf("err %v after %d requests", err, len(m.reqs))
	}
	if res.Partial || res.Answer != "" || len(res.History) != 1 || res.Usage.OutputTokens != 2 {
		t.Fatalf("res %+v", res)
	}
}

// An early stop's summary is held to Options.Answers like the iteration
// cap's: it is checked last, without a re-ask; a mismatch is returned with
// the summary recorded.
func TestPartialSummaryHeldToTheContract(t *testing.T) {
	for _, tt := range []struct {
		summary string
		wantErr error
	}{{"ok", nil}, {"not ok", errNotOK}} {
		m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){answer(tt.summary, 1, 1)}}
		c := &okChecker{retries: 2}
		res := &Result{History: []llm.Message{{Role: llm.RoleUser, Content: "task"}}}
		got, err := PartialSummary(context.Background(), Options{Model: m, Answers: c}, res, TimeBudgetMarker)
		if !errors.Is(err, tt.wantErr) || err == nil && tt.wantErr != nil {
			t.Fatalf("%q: err = %v, want %v", tt.summary, err, tt.wantErr)
		}
		if got != TimeBudgetMarker+"\n\n"+tt.summary || res.Answer != got || len(c.last) != 1 || c.last[0] != tt.summary || c.asked != 0 {
			t.Fatalf("%q: answer %q, res.Answer %q, checked %q, re-asks %d", tt.summary, got, res.Answer, c.last, c.asked)
		}
		if !strings.Contains(m.reqs[0].Messages[len(m.reqs[0].Messages)-1].Content, contractSummaryNote) {
			t.Errorf("%q: the summary request does not ask for the contract's form", tt.summary)
		}
	}
}

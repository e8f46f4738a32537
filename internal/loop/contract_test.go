package loop

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
)

// okChecker accepts the answer "ok" and asks again up to retries times.
type okChecker struct {
	retries, asked int
	last           []string
}

var errNotOK = errors.New("answer is not ok")

func (c *okChecker) Check(answer string) (string, error) {
	if answer == "ok" {
		return "", nil
	}
	if c.asked == c.retries {
		return "", errNotOK
	}
	c.asked++
	return "say ok (" + answer + ")", nil
}

func (c *okChecker) Last(answer string) error {
	c.last = append(c.last, answer)
	if answer != "ok" {
		return errNotOK
	}
	return nil
}

var testFormat = &llm.ResponseFormat{Name: "v", Schema: json.RawMessage(`{"type":"object"}`)}

func TestContractReAskThenValid(t *testing.T) {
	m := turns(answer("nope", 10, 5), answer("ok", 10, 5))
	c := &okChecker{retries: 2}
	var kinds []ProgressKind
	res, evs, err := runWithEvents(t, Options{Model: m, Answers: c, ResponseFormat: testFormat,
		Progress: func(p Progress) { kinds = append(kinds, p.Kind) }}, "q")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "ok" || res.Iterations != 2 || res.Usage.OutputTokens != 10 {
		t.Fatalf("result = %+v", res)
	}
	if len(m.reqs) != 2 {
		t.Fatalf("%d requests", len(m.reqs))
	}
	for i, req := range m.reqs {
		if req.ResponseFormat != testFormat {
			t.Errorf("request %d has response format %v", i+1, req.ResponseFormat)
		}
	}
	second := m.reqs[1].Messages
	if last := second[len(second)-1]; last.Role != llm.RoleUser || last.Content != "say ok (nope)" ||
		second[len(second)-2].Content != "nope" {
		t.Fatalf("second request ends with %+v", second[len(second)-2:])
	}
	if !slices.Contains(kinds, ProgressReAsk) {
		t.Errorf("no ProgressReAsk in %v", kinds)
	}
	end := lastEvent(t, evs)
	if end.Type != events.RunCompleted || end.Data["output_schema"] != true || end.Data["schema_retries"] != 1 {
		t.Fatalf("last event = %+v", end)
	}
}

func TestContractAlwaysInvalid(t *testing.T) {
	m := turns(answer("a", 1, 1), answer("b", 1, 1), answer("c", 1, 1), answer("never asked", 1, 1))
	res, evs, err := runWithEvents(t, Options{Model: m, Answers: &okChecker{retries: 2}}, "q")
	if !errors.Is(err, errNotOK) {
		t.Fatalf("err = %v", err)
	}
	if res.Answer != "c" || len(m.reqs) != 3 {
		t.Fatalf("answer %q after %d requests", res.Answer, len(m.reqs))
	}
	end := lastEvent(t, evs)
	if end.Type != events.RunFailed || end.Data["output_schema"] != true || end.Data["schema_retries"] != 2 || end.Data["error_class"] != "error" {
		t.Fatalf("last event = %+v", end)
	}
}

func TestNoContractNoFields(t *testing.T) {
	m := turns(answer("anything", 1, 1))
	_, evs, err := runWithEvents(t, Options{Model: m}, "q")
	if err != nil {
		t.Fatal(err)
	}
	end := lastEvent(t, evs)
	if _, ok := end.Data["output_schema"]; ok || m.reqs[0].ResponseFormat != nil {
		t.Fatalf("contract fields without a contract: %+v", end.Data)
	}
}

// Each re-ask is a model call like any other: a budget can run out on it.
func TestContractReAskCountsAgainstBudget(t *testing.T) {
	m := turns(answer("nope", 10, 60), answer("ok", 10, 60))
	tr := budget.NewTracker(budget.Limits{MaxOutputTokens: 100}, budget.Prices{}, time.Now())
	_, evs, err := runWithEvents(t, Options{Model: m, Budget: tr, Answers: &okChecker{retries: 2}}, "q")
	var be *budget.Error
	if !errors.As(err, &be) || be.Limit != budget.LimitOutputTokens {
		t.Fatalf("err = %v", err)
	}
	if len(m.reqs) != 2 {
		t.Fatalf("%d requests", len(m.reqs))
	}
	end := lastEvent(t, evs)
	if end.Type != events.RunFailed || end.Data["schema_retries"] != 1 {
		t.Fatalf("last event = %+v", end)
	}
}

// A re-ask is an iteration: at the cap, the summary is held to the contract
// with Last, and it asks in the contract's form.
func TestContractAtIterationCap(t *testing.T) {
	for _, tt := range []struct {
		summary string
		wantErr bool
	}{{"ok", false}, {"prose", true}} {
		m := turns(answer("nope", 1, 1), answer(tt.summary, 1, 1))
		c := &okChecker{retries: 2}
		res, err := Run(context.Background(), Options{Model: m, MaxIterations: 1, Answers: c, ResponseFormat: testFormat}, "q")
		if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, errNotOK)) {
			t.Fatalf("%s: err = %v", tt.summary, err)
		}
		if len(c.last) != 1 || c.last[0] != tt.summary || !res.Partial || !strings.HasPrefix(res.Answer, IterationCapMarker) {
			t.Fatalf("%s: Last saw %q; result %+v", tt.summary, c.last, res)
		}
		sum := m.reqs[1]
		if sum.ResponseFormat != testFormat || len(sum.Tools) != 0 ||
			!strings.HasSuffix(sum.Messages[len(sum.Messages)-1].Content, contractSummaryNote) {
			t.Fatalf("summary request: %+v", sum)
		}
	}
}

// A cut answer that is asked again no longer ends the run as partial.
func TestContractCutAnswerAskedAgain(t *testing.T) {
	m := turns(reply(llm.Message{Content: `{"a": [1, 2`}, "length", 5), answer("ok", 1, 1))
	res, err := Run(context.Background(), Options{Model: m, Answers: &okChecker{retries: 1}}, "q")
	if err != nil || res.Partial || res.Stop != StopCompleted || res.Answer != "ok" {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

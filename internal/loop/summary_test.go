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

// said is a summary turn: text with a finish reason.
func said(text, finish string) func(llm.Request) (*llm.Response, error) {
	return reply(llm.Message{Content: text}, finish, 1)
}

// The iteration cap's answer says why the run stopped: Stop is
// StopMaxIterations, not StopCompleted.
func TestIterationCapSetsTheStop(t *testing.T) {
	ok := funcTool{"ok", func(context.Context, json.RawMessage) (string, error) { return "x", nil }}
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){callTools(1, 1, tc("", "ok", `{}`)), answer("partial work", 1, 1)}}
	res, err := Run(context.Background(), Options{Model: m, Tools: mustRegistry(t, ok), MaxIterations: 1}, "go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopMaxIterations || !res.Partial {
		t.Fatalf("stop = %v, partial = %v; want StopMaxIterations, partial", res.Stop, res.Partial)
	}
}

// The summary side call keeps the answer contract of a think call: an empty
// reply is asked again once, twice is no answer; a reply cut at the output
// limit is still the summary, with a warning, unless it has no text or the
// limit was the output budget's clamp; a filtered reply is no answer.
func TestSummaryAnswerContract(t *testing.T) {
	ok := funcTool{"ok", func(context.Context, json.RawMessage) (string, error) { return "x", nil }}
	loopTurn := callTools(1, 1, tc("", "ok", `{}`))
	type turn = func(llm.Request) (*llm.Response, error)
	tests := []struct {
		name      string
		summary   []turn
		limits    budget.Limits
		wantErr   error  // errors.Is target; nil = success
		wantLimit string // a budget stop on this limit
		answer    string
		warned    bool
		empties   int // ProgressEmptyReply notifications
	}{
		{name: "empty, then text", summary: []turn{said("", "stop"), said("what I found", "stop")},
			answer: "what I found", empties: 1},
		{name: "empty twice", summary: []turn{said("  ", "stop"), said("", "stop")}, wantErr: ErrEmptyAnswer, empties: 1},
		{name: "cut at the output limit", summary: []turn{said("what I fou", "length")}, answer: "what I fou", warned: true},
		{name: "cut before any text", summary: []turn{said("", "length")}, wantErr: ErrEmptyAnswer},
		{name: "filtered", summary: []turn{said("", "content_filter")}, wantErr: ErrContentFilter},
		{name: "cut at the output budget", summary: []turn{said("what I fou", "length")},
			limits: budget.Limits{MaxOutputTokens: 5}, wantLimit: budget.LimitOutputTokens},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &scriptedModel{turns: append([]turn{loopTurn}, tt.summary...)}
			var warnings []string
			empties := 0
			o := Options{Model: m, Tools: mustRegistry(t, ok), MaxIterations: 1,
				Budget: budget.NewTracker(tt.limits, budget.Prices{}, time.Now()),
				Warn:   func(s string) { warnings = append(warnings, s) },
				Progress: func(p Progress) {
					if p.Kind == ProgressEmptyReply {
						empties++
					}
				}}
			res, err := Run(context.Background(), o, "go")
			switch {
			case tt.wantLimit != "":
				var be *budget.Error
				if !errors.As(err, &be) || be.Limit != tt.wantLimit {
					t.Fatalf("err = %v, want a %s budget stop", err, tt.wantLimit)
				}
			case tt.wantErr != nil:
				var me *MaxIterationsError
				if !errors.As(err, &me) || !errors.Is(err, tt.wantErr) || err.Error() != "reached max iterations (1) without final answer" {
					t.Fatalf("err = %v, want MaxIterationsError wrapping %v", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if res.Answer != IterationCapMarker+"\n\n"+tt.answer || res.Stop != StopMaxIterations || !res.Partial {
					t.Fatalf("answer %q, stop %v, partial %v", res.Answer, res.Stop, res.Partial)
				}
			}
			if len(m.reqs) != 1+len(tt.summary) {
				t.Errorf("%d requests, want %d", len(m.reqs), 1+len(tt.summary))
			}
			if tt.warned != (len(warnings) == 1 && warnings[0] == cutSummaryWarning) || !tt.warned && len(warnings) > 0 {
				t.Errorf("warnings %q", warnings)
			}
			if empties != tt.empties {
				t.Errorf("%d empty-reply notifications, want %d", empties, tt.empties)
			}
		})
	}
}

// A tool-call budget stop whose summary stays empty records no summary and
// returns the budget error.
func TestBudgetStopEmptySummary(t *testing.T) {
	ok := funcTool{"ok", func(context.Context, json.RawMessage) (string, error) { return "x", nil }}
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(1, 1, tc("", "ok", `{}`), tc("", "ok", `{}`)), said("", "stop"), said("", "stop"),
	}}
	tr := budget.NewTracker(budget.Limits{MaxToolCalls: 1}, budget.Prices{}, time.Now())
	res, err := Run(context.Background(), Options{Model: m, Tools: mustRegistry(t, ok), Budget: tr}, "go")
	if !budget.IsBudget(err) || res.Answer != "" || len(m.reqs) != 3 {
		t.Fatalf("err %v, answer %q, %d requests", err, res.Answer, len(m.reqs))
	}
	for _, msg := range res.History {
		if strings.HasPrefix(msg.Content, BudgetStopMarker) {
			t.Fatalf("an empty summary was recorded: %q", msg.Content)
		}
	}
}

// The summary request fits the context window: a long run of large tool
// results in a small window sends a transcript under the trimming budget,
// newest entries first, saying how many were left out.
func TestSummaryFitsTheContextWindow(t *testing.T) {
	m := &scriptedModel{turns: append(stepsOf(8, 2)[:8], answer("summary", 1, 1))}
	res, err := Run(context.Background(), Options{Model: m, System: "sys", Tools: mustRegistry(t, bigTool(1900)), Loops: noLoopBreaker,
		MaxIterations: 8, ContextWindow: 4000}, "the task")
	if err != nil || res.Stop != StopMaxIterations {
		t.Fatalf("err %v, stop %v", err, res.Stop)
	}
	req := m.reqs[len(m.reqs)-1]
	if est := EstimateMessages(req.Messages); est > int(trimFactor*4000) {
		t.Errorf("summary request estimated at %d tokens, over the budget of %d", est, int(trimFactor*4000))
	}
	body := req.Messages[len(req.Messages)-1].Content
	if !strings.Contains(body, "earlier message(s) left out to fit the context window]") {
		t.Errorf("the transcript does not say what it left out: %.300q", body)
	}
	if !strings.HasPrefix(body, summaryPrompt) || !strings.Contains(body, "called big") {
		t.Errorf("transcript %.300q", body)
	}
}

// The transcript is built from the trimmed view: a tool result trimming has
// truncated shows as its notice, not its text.
func TestSummaryUsesTheTrimmedView(t *testing.T) {
	r := newRunner(Options{ContextWindow: 100000})
	r.hist = historyOf(6, strings.Repeat("q", 3000))
	r.trim.cut[3], r.trim.nTrunc = truncatedNotice(3000), 1 // the first step's first result
	msgs := r.summaryRequest("")
	body := msgs[len(msgs)-1].Content
	if !strings.Contains(body, truncatedNotice(3000)) {
		t.Errorf("the truncated result is not shown as its notice: %.500q", body)
	}
	if r.sentEstimate != EstimateMessages(msgs) {
		t.Errorf("sentEstimate %d, want %d", r.sentEstimate, EstimateMessages(msgs))
	}
}

func TestFitEntries(t *testing.T) {
	e := []string{"aaaa\n", "bbbb\n", "cccc\n"}
	for _, tt := range []struct {
		room int
		want []string
	}{
		{100, e}, {10, e[1:]}, {9, e[2:]}, {5, e[2:]}, {3, []string{"ccc …\n"}}, {0, nil}, {-5, nil},
	} {
		got := fitEntries(e, tt.room)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("fitEntries(room %d) = %q, want %q", tt.room, got, tt.want)
		}
	}
	if got := fitEntries([]string{"ééé\n"}, 3); got[0] != "é …\n" {
		t.Errorf("cut inside a rune: %q", got)
	}
	if got := fitEntries([]string{"\x80\x80\x80\x80\n"}, 3); got[0] != " …\n" { // no rune start to cut at
		t.Errorf("invalid UTF-8: %q", got)
	}
}

// A length rejection of the summary request puts the history in survival
// mode and the summary is asked again, as a think call would be.
func TestSummarySurvivesALengthRejection(t *testing.T) {
	turns := stepsOf(5, 1)[:5]
	turns = append(turns, func(llm.Request) (*llm.Response, error) {
		return nil, &llm.ContextLengthError{Status: 400, Message: "This model's maximum context length is 8192 tokens."}
	}, answer("summary", 1, 1))
	m := &scriptedModel{turns: turns}
	res, evs, err := runWithEvents(t, Options{Model: m, System: "sys", Tools: mustRegistry(t, bigTool(100)), MaxIterations: 5}, "the task")
	if err != nil || res.Answer != IterationCapMarker+"\n\nsummary" {
		t.Fatalf("err %v, answer %q", err, res.Answer)
	}
	first, retry := m.reqs[5].Messages, m.reqs[6].Messages
	if len(retry[len(retry)-1].Content) >= len(first[len(first)-1].Content) {
		t.Errorf("the retried summary is not shorter (%d ≥ %d bytes)", len(retry[len(retry)-1].Content), len(first[len(first)-1].Content))
	}
	if tr := eventsOf(evs, events.ContextTrimmed); len(tr) != 1 || tr[0].Data["mode"] != "survival" {
		t.Errorf("context_trimmed %+v", tr)
	}
}

package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
)

// usageReply is a response with the given usage; calls, when given, are its
// tool calls.
func usageReply(text string, u llm.Usage, calls ...llm.ToolCall) func(llm.Request) (*llm.Response, error) {
	return func(llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: text, ToolCalls: calls}, Usage: u}, nil
	}
}

// TestUsageEstimatedWhenMissing: a response without usage, or with zeros
// where there was something to count, is counted by odek's estimate of the
// request it answered and of the reply (issue 34), marked estimated in the
// result and the events, with one warning per run; a provider's counts are
// taken as they are.
func TestUsageEstimatedWhenMissing(t *testing.T) {
	t.Parallel()
	none := llm.Usage{}
	zeros := llm.Usage{Present: true}
	tests := []struct {
		name            string
		first, second   llm.Usage
		estimated       bool
		inEstimated     bool // the input counts are the estimate
		outEstimated    bool
		wantIn, wantOut int64 // when not estimated
		warnings        int
	}{
		{"no usage", none, none, true, true, true, 0, 0, 1},
		{"zeros", zeros, zeros, true, true, true, 0, 0, 1},
		{"no output count for a reply with text", llm.Usage{Present: true, InputTokens: 70}, llm.Usage{Present: true, InputTokens: 80},
			true, false, true, 150, 0, 1},
		{"reported", llm.Usage{Present: true, InputTokens: 70, OutputTokens: 2}, llm.Usage{Present: true, InputTokens: 80, OutputTokens: 3},
			false, false, false, 150, 5, 0},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			echo := funcTool{"echo", func(context.Context, json.RawMessage) (string, error) { return "echoed", nil }}
			m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
				usageReply("", c.first, tc("c1", "echo", `{"text":"hello there"}`)),
				usageReply("The answer is forty-two.", c.second),
			}}
			var warns []string
			sink := &memSink{}
			em := events.NewEmitter(events.Options{Sinks: []events.Sink{sink}})
			res, err := Run(context.Background(), Options{Model: m, ModelName: "m", System: "system prompt", Tools: mustRegistry(t, echo),
				Events: em, Warn: func(s string) { warns = append(warns, s) }}, "question")
			if err != nil {
				t.Fatal(err)
			}
			_ = em.Close(context.Background())
			wantIn, wantOut := c.wantIn, c.wantOut
			if c.inEstimated {
				wantIn = 0
				for _, req := range m.reqs {
					wantIn += int64(EstimateMessages(req.Messages) + EstimateTools(req.Tools))
				}
			}
			if c.outEstimated {
				wantOut = int64(tokens("echo")+tokens(`{"text":"hello there"}`)) + int64(tokens("The answer is forty-two."))
			}
			if res.Usage.Prompt() != wantIn || res.Usage.OutputTokens != wantOut || res.Usage.Estimated != c.estimated {
				t.Errorf("usage = %+v, want in %d, out %d, estimated %v", res.Usage, wantIn, wantOut, c.estimated)
			}
			if len(warns) != c.warnings || c.warnings > 0 && !strings.Contains(warns[0], "reported no token usage") {
				t.Errorf("warnings = %q, want %d", warns, c.warnings)
			}
			for _, ev := range sink.evs {
				if ev.Type != events.IterationCompleted && ev.Type != events.RunCompleted {
					continue
				}
				if got, _ := ev.Data["usage_estimated"].(bool); got != c.estimated {
					t.Errorf("%s usage_estimated = %v, want %v", ev.Type, ev.Data["usage_estimated"], c.estimated)
				}
			}
		})
	}
}

// TestBudgetsHoldWithoutUsage: with a provider that reports no usage, the
// token and cost budgets stop the run on the estimate (issue 34: before,
// they never fired and the run ended exit 0).
func TestBudgetsHoldWithoutUsage(t *testing.T) {
	t.Parallel()
	prices := budget.Prices{InputPerMillionUSD: 0.15, OutputPerMillionUSD: 0.6}
	tests := []struct {
		name   string
		limits budget.Limits
		limit  string
	}{
		{"input tokens", budget.Limits{MaxInputTokens: 100}, budget.LimitInputTokens},
		{"output tokens", budget.Limits{MaxOutputTokens: 20}, budget.LimitOutputTokens},
		{"cost", budget.Limits{MaxCostUSD: 0.00001}, budget.LimitCostUSD},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			echo := funcTool{"echo", func(context.Context, json.RawMessage) (string, error) { return strings.Repeat("data ", 40), nil }}
			turns := make([]func(llm.Request) (*llm.Response, error), 40)
			for i := range turns {
				turns[i] = usageReply(strings.Repeat("thinking ", 4), llm.Usage{}, tc(fmt.Sprintf("c%d", i), "echo", `{}`))
			}
			m := &scriptedModel{turns: turns}
			tr := budget.NewTracker(c.limits, prices, time.Now())
			_, err := Run(context.Background(), Options{Model: m, ModelName: "m", System: strings.Repeat("rules ", 40),
				Tools: mustRegistry(t, echo), Budget: tr}, "question")
			var be *budget.Error
			if !errors.As(err, &be) || be.Limit != c.limit || !be.Estimated {
				t.Fatalf("err = %v, want an estimated %s stop", err, c.limit)
			}
			if len(m.reqs) >= len(turns) {
				t.Fatalf("%d requests: the budget never stopped the run", len(m.reqs))
			}
		})
	}
}

package policy

import (
	"context"
	"testing"

	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/risk"
)

// askWatch checks, while the question is open, that the run's monitor
// knows a person is being asked.
type askWatch struct {
	m         *liveness.Monitor
	prompting bool
}

func (a *askWatch) Ask(context.Context, Question) (Answer, error) {
	a.prompting = a.m.Status().Prompting
	return AnswerOnce, nil
}

// A prompt holds the stall watchdog while it is open, and only then.
func TestPromptHoldsTheWatchdog(t *testing.T) {
	m := liveness.New(nil)
	ctx := liveness.With(context.Background(), m.Begin(liveness.Activity{Phase: liveness.PhaseTool, Tool: "shell"}))
	ask := &askWatch{m: m}
	p := mustNew(t, Options{Asker: ask})
	if err := p.Check(ctx, call("shell", "curl x", false, risk.NetworkEgress)); err != nil {
		t.Fatal(err)
	}
	if !ask.prompting || m.Status().Prompting {
		t.Errorf("prompting during the question %t, after it %t", ask.prompting, m.Status().Prompting)
	}
}

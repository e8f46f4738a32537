package budget

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestReserveSplitsWhatIsLeft(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 3, MaxInputTokens: 1000, MaxRuntimeSeconds: 60}, Prices{}, t0)
	if err := tr.CheckToolBatch(1); err != nil { // the delegate_tasks call itself
		t.Fatal(err)
	}
	g, err := tr.Reserve(8, t0.Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var calls, in int64
	for i, s := range g.Shares {
		calls += s.ToolCalls
		in += s.InputTokens
		if want := int64(0); i >= 2 && s.ToolCalls != want {
			t.Errorf("share %d: %d tool calls, want 0 (2 left for 8 children)", i, s.ToolCalls)
		}
	}
	if calls != 2 || in != 1000 || g.RuntimeSeconds != 50 {
		t.Fatalf("reserved %d calls, %d tokens, %ds; want 2, 1000, 50", calls, in, g.RuntimeSeconds)
	}
	// Everything is held: a parallel delegation finds nothing left.
	_, err = tr.Reserve(1, t0)
	wantBudget(t, err, LimitToolCalls, 3)
	for _, s := range g.Shares {
		if err := tr.Settle(s, ChildUsage{}); err != nil {
			t.Fatal(err)
		}
	}
	g, err = tr.Reserve(1, t0)
	if err != nil || g.Shares[0].ToolCalls != 2 {
		t.Fatalf("after settling: %+v, %v", g, err)
	}
}

func TestReserveRefusesAnExhaustedDimension(t *testing.T) {
	tests := []struct {
		name  string
		tr    func() *Tracker
		limit string
		obs   float64
	}{
		{"tool calls", func() *Tracker {
			tr := NewTracker(Limits{MaxToolCalls: 1}, Prices{}, t0)
			_ = tr.CheckToolBatch(1)
			return tr
		}, LimitToolCalls, 1},
		{"input tokens", func() *Tracker {
			tr := NewTracker(Limits{MaxInputTokens: 10}, Prices{}, t0)
			_ = tr.AddUsage(Usage{InputTokens: 10})
			return tr
		}, LimitInputTokens, 10},
		{"cost", func() *Tracker {
			tr := NewTracker(Limits{MaxCostUSD: 0.000002}, Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, t0)
			_ = tr.AddUsage(Usage{InputTokens: 2})
			return tr
		}, LimitCostUSD, 0.000002},
		{"runtime", func() *Tracker { return NewTracker(Limits{MaxRuntimeSeconds: 1}, Prices{}, t0.Add(-time.Second)) }, LimitRuntime, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.tr().Reserve(2, t0)
			wantBudget(t, err, tc.limit, tc.obs)
		})
	}
}

func TestReserveWithoutLimitsAndNil(t *testing.T) {
	g, err := NewTracker(Limits{}, Prices{}, t0).Reserve(3, t0)
	if err != nil || len(g.Shares) != 3 || g.Shares[0] != (Reservation{}) || g.RuntimeSeconds != 0 {
		t.Fatalf("%+v %v", g, err)
	}
	var nilT *Tracker
	if g, err := nilT.Reserve(2, t0); err != nil || len(g.Shares) != 2 {
		t.Fatalf("%+v %v", g, err)
	}
	if nilT.Settle(Reservation{}, ChildUsage{ToolCalls: 9}) != nil || nilT.Exceeded() != nil {
		t.Fatal("nil tracker must be a no-op")
	}
}

// TestSettleReportsTheOverrun: what a child spent is charged whole; past the
// limit, Settle and then Exceeded say so, the error marks an overrun and the
// message does not pretend a batch was refused.
func TestSettleReportsTheOverrun(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 3}, Prices{}, t0)
	_ = tr.CheckToolBatch(1)
	g, _ := tr.Reserve(1, t0)
	err := tr.Settle(g.Shares[0], ChildUsage{ToolCalls: 40})
	wantBudget(t, err, LimitToolCalls, 41)
	again := tr.Exceeded()
	wantBudget(t, again, LimitToolCalls, 41)
	e := again.(*Error)
	if !e.Overrun || strings.Contains(e.Error(), "not started") || e.EventData()["calls_ran"] != int64(41) {
		t.Fatalf("%+v: %s %v", e, e.Error(), e.EventData())
	}
	if got := e.Error(); got != "execution budget exceeded: tool_calls observed 41 calls (limit 3 calls): reached with what sub-agents charged back" {
		t.Fatalf("message %q", got)
	}
}

func TestExceededWithinLimits(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 3, MaxInputTokens: 100}, Prices{}, t0)
	_ = tr.AddChild(ChildUsage{ToolCalls: 3, InputTokens: 99})
	if err := tr.Exceeded(); err != nil {
		t.Fatalf("at the tool-call limit, below the token limit: %v", err)
	}
	_ = tr.AddChild(ChildUsage{InputTokens: 1})
	wantBudget(t, tr.Exceeded(), LimitInputTokens, 100)
}

// TestReserveConcurrent: parallel delegations never hold more than is left.
func TestReserveConcurrent(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 50}, Prices{}, t0)
	var mu sync.Mutex
	var total int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, err := tr.Reserve(3, t0)
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, s := range g.Shares {
				total += s.ToolCalls
			}
		}()
	}
	wg.Wait()
	if total != 50 {
		t.Fatalf("reserved %d tool calls in all, want exactly the 50 left", total)
	}
}

// TestSettleChargesTheReservationOfASilentChild is in the subagent package
// (chargeOf); here: Settle never releases more than is held.
func TestSettleReleasesNoMoreThanHeld(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 4}, Prices{}, t0)
	g, _ := tr.Reserve(2, t0)
	_ = tr.Settle(Reservation{ToolCalls: 100}, ChildUsage{})
	g2, err := tr.Reserve(1, t0)
	if err != nil || g2.Shares[0].ToolCalls != 4 {
		t.Fatalf("%+v %v (first grant %+v)", g2, err, g)
	}
}

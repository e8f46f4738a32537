package budget

import (
	"errors"
	"testing"
)

// TestReserveRefusalNamesTheLimit: a refused delegation's error carries the
// configured limit of the dimension that ran out, in its unit (dollars for
// cost, not micro-dollars), and says it in its message.
func TestReserveRefusalNamesTheLimit(t *testing.T) {
	priced := Prices{InputPerMillionUSD: 1e6, OutputPerMillionUSD: 1} // $1 an input token
	tests := []struct {
		name string
		tr   *Tracker
		use  func(*Tracker)
		max  float64
		msg  string
	}{
		{"tool calls", NewTracker(Limits{MaxToolCalls: 2, MaxCostUSD: 5}, priced, t0),
			func(tr *Tracker) { _ = tr.CheckToolBatch(2) }, 2,
			"execution budget exceeded: tool_calls observed 2 calls (limit 2 calls)"},
		{"output tokens", NewTracker(Limits{MaxOutputTokens: 7}, Prices{}, t0),
			func(tr *Tracker) { _ = tr.AddUsage(Usage{OutputTokens: 7}) }, 7,
			"execution budget exceeded: output_tokens observed 7 tokens (limit 7 tokens)"},
		{"cost", NewTracker(Limits{MaxCostUSD: 0.25}, priced, t0),
			func(tr *Tracker) { _ = tr.AddUsage(Usage{InputTokens: 1}) }, 0.25,
			"execution budget exceeded: cost_usd observed $1.000000 (limit $0.250000)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.use(tc.tr)
			_, err := tc.tr.Reserve(1, t0)
			var be *Error
			if !errors.As(err, &be) || be.Max != tc.max || err.Error() != tc.msg {
				t.Fatalf("err = %v (%+v), want Max %v and %q", err, be, tc.max, tc.msg)
			}
		})
	}
}

// TestReserveAfterAPartialSettle: while one child of a delegation still
// holds its share, a second delegation gets exactly the limit less what was
// spent less what is still held, and what is spent and held together never
// passes the limit.
func TestReserveAfterAPartialSettle(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 10, MaxInputTokens: 1000}, Prices{}, t0)
	g, err := tr.Reserve(2, t0) // 5 calls and 500 tokens each
	if err != nil {
		t.Fatal(err)
	}
	// The first child spent 2 calls and 100 tokens; the second still runs.
	if err := tr.Settle(g.Shares[0], ChildUsage{ToolCalls: 2, InputTokens: 100}); err != nil {
		t.Fatal(err)
	}
	g2, err := tr.Reserve(1, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g2.Shares[0], (Reservation{ToolCalls: 3, InputTokens: 400}); got != want {
		t.Fatalf("second delegation got %+v, want %+v (10-2-5 calls, 1000-100-500 tokens)", got, want)
	}
	// Everything is spent or held now: a third delegation gets nothing.
	_, err = tr.Reserve(1, t0)
	wantBudget(t, err, LimitToolCalls, 10)
}

// TestReserveLeavesUnlimitedDimensionsUnlimited: a dimension without a
// limit is reserved as 0 ("no limit" for the child), however much the run
// has used of it, and nothing of it is held.
func TestReserveLeavesUnlimitedDimensionsUnlimited(t *testing.T) {
	tr := NewTracker(Limits{MaxToolCalls: 4}, Prices{}, t0)
	_ = tr.AddUsage(Usage{InputTokens: 300, OutputTokens: 40})
	_ = tr.CheckToolBatch(1)
	g, err := tr.Reserve(2, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Reservation{{ToolCalls: 2}, {ToolCalls: 1}}
	for i, s := range g.Shares {
		if s != want[i] {
			t.Errorf("share %d = %+v, want %+v", i, s, want[i])
		}
	}
	if tr.reserved != (Reservation{ToolCalls: 3}) {
		t.Errorf("held %+v, want only the 3 tool calls", tr.reserved)
	}
}

// TestGrantsSayWhetherCostIsEnforced: children are told the parent enforces
// a cost cap exactly when it does (a cap and known prices).
func TestGrantsSayWhetherCostIsEnforced(t *testing.T) {
	priced := Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 2}
	for _, tc := range []struct {
		name string
		l    Limits
		p    Prices
		want bool
	}{
		{"cap and prices", Limits{MaxCostUSD: 1}, priced, true},
		{"no cap", Limits{MaxToolCalls: 3}, priced, false},
		{"cap without prices", Limits{MaxCostUSD: 1}, Prices{}, false},
	} {
		g, err := NewTracker(tc.l, tc.p, t0).Reserve(1, t0)
		if err != nil || g.CostEnforced != tc.want {
			t.Errorf("%s: CostEnforced = %v (%v), want %v", tc.name, g.CostEnforced, err, tc.want)
		}
	}
}

// TestExceededWithoutAToolCallLimit: tool calls made under no tool-call
// limit are never an overrun.
func TestExceededWithoutAToolCallLimit(t *testing.T) {
	tr := NewTracker(Limits{MaxInputTokens: 100}, Prices{}, t0)
	_ = tr.CheckToolBatch(5)
	_ = tr.AddChild(ChildUsage{ToolCalls: 7})
	if err := tr.Exceeded(); err != nil {
		t.Fatalf("12 tool calls, no tool-call limit: %v", err)
	}
}

// TestSettleReleasesEveryDimension: once a child is settled, what it held
// and did not spend is free again in each dimension, and what it spent
// stays charged.
func TestSettleReleasesEveryDimension(t *testing.T) {
	l := Limits{MaxToolCalls: 10, MaxInputTokens: 1000, MaxOutputTokens: 100, MaxCostUSD: 1}
	tr := NewTracker(l, Prices{InputPerMillionUSD: 1, OutputPerMillionUSD: 1}, t0)
	g, err := tr.Reserve(1, t0)
	if err != nil {
		t.Fatal(err)
	}
	spent := ChildUsage{ToolCalls: 1, InputTokens: 10, OutputTokens: 5, CostMicroUSD: 250_000}
	if err := tr.Settle(g.Shares[0], spent); err != nil {
		t.Fatal(err)
	}
	g, err = tr.Reserve(1, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := Reservation{ToolCalls: 9, InputTokens: 990, OutputTokens: 95, CostMicroUSD: 750_000}
	if g.Shares[0] != want {
		t.Fatalf("after settling: %+v, want %+v", g.Shares[0], want)
	}
}

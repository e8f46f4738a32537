package budget

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestEstimatedUsage: usage odek estimated (the provider reported none)
// counts against every budget like reported usage, and everything that
// shows a figure says it is an estimate: the snapshot, the error, its
// event data. A child's estimate marks the parent's figures too.
func TestEstimatedUsage(t *testing.T) {
	t.Parallel()
	prices := Prices{InputPerMillionUSD: 1_000_000, OutputPerMillionUSD: 1_000_000} // $1 a token
	tests := []struct {
		name   string
		limits Limits
		charge func(*Tracker) error
		limit  string
	}{
		{"input tokens", Limits{MaxInputTokens: 100}, func(tr *Tracker) error {
			return tr.AddUsage(Usage{InputTokens: 120, OutputTokens: 3, Estimated: true})
		}, LimitInputTokens},
		{"output tokens", Limits{MaxOutputTokens: 10}, func(tr *Tracker) error {
			return tr.AddUsage(Usage{InputTokens: 1, OutputTokens: 12, Estimated: true})
		}, LimitOutputTokens},
		{"cost", Limits{MaxCostUSD: 0.0001}, func(tr *Tracker) error {
			return tr.AddUsage(Usage{InputTokens: 1, Estimated: true})
		}, LimitCostUSD},
		{"a child's estimate", Limits{MaxInputTokens: 100}, func(tr *Tracker) error {
			return tr.AddChild(ChildUsage{InputTokens: 100, Estimated: true})
		}, LimitInputTokens},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := NewTracker(tc.limits, prices, time.Now())
			err := tc.charge(tr)
			var be *Error
			if !errors.As(err, &be) || be.Limit != tc.limit || !be.Estimated {
				t.Fatalf("err = %#v, want an estimated %s stop", err, tc.limit)
			}
			if !strings.Contains(be.Error(), "by estimate, the provider having reported no usage") {
				t.Errorf("message %q does not say it is an estimate", be.Error())
			}
			if be.EventData()["usage_estimated"] != true {
				t.Errorf("event data %v lacks usage_estimated", be.EventData())
			}
			if !tr.Snapshot().Estimated {
				t.Error("snapshot not marked estimated")
			}
		})
	}
	// Reported usage is not marked.
	tr := NewTracker(Limits{MaxInputTokens: 100}, prices, time.Now())
	var be *Error
	if err := tr.AddUsage(Usage{InputTokens: 120}); !errors.As(err, &be) || be.Estimated || tr.Snapshot().Estimated ||
		strings.Contains(be.Error(), "estimate") || be.EventData()["usage_estimated"] != nil {
		t.Fatalf("reported usage marked estimated: %v, %v", err, tr.Snapshot().Estimated)
	}
	// Once estimated, the figures stay marked.
	if err := tr.AddUsage(Usage{InputTokens: 1, Estimated: true}); err == nil || !tr.Snapshot().Estimated {
		t.Fatal("estimate not recorded")
	}
	_ = tr.AddUsage(Usage{InputTokens: 1})
	if !tr.Snapshot().Estimated {
		t.Fatal("reported usage after an estimate cleared the mark")
	}
}

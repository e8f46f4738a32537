package wire

import (
	"testing"
)

func TestResultExitCode(t *testing.T) {
	tests := []struct {
		r    Result
		hard bool
		want int
	}{
		{Result{Status: StatusSuccess}, false, 0},
		{Result{Status: StatusPartial, PartialReason: ReasonIteration}, false, 0},
		{Result{Status: StatusPartial, PartialReason: ReasonTime}, false, 2},
		{Result{Status: StatusError}, true, 2},
		{Result{Status: StatusBudgetExhausted, PartialReason: ReasonExecution}, false, 4},
		{Result{Status: StatusError}, false, 1},
	}
	for _, tc := range tests {
		if got := tc.r.ExitCode(tc.hard); got != tc.want {
			t.Errorf("%+v hard=%v → %d, want %d", tc.r, tc.hard, got, tc.want)
		}
	}
}

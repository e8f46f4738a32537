package loop

import (
	"testing"

	"github.com/odek-run/odek/internal/events"
)

// docs/EXTENSIONS.md, iteration_completed: the per-call speed fields are "all
// omitted when zero / unknown". A provider that reports usage with no
// prompt or no completion tokens gives no call_input_tokens or
// call_output_tokens, while the ones it did report stay.
func TestIterationCallTokensOmittedWhenZero(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in, out int64
		want    map[string]bool
	}{
		{"no tokens", 0, 0, map[string]bool{"call_input_tokens": false, "call_output_tokens": false}},
		{"input only", 7, 0, map[string]bool{"call_input_tokens": true, "call_output_tokens": false}},
		{"output only", 0, 5, map[string]bool{"call_input_tokens": false, "call_output_tokens": true}},
		{"both", 7, 5, map[string]bool{"call_input_tokens": true, "call_output_tokens": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, evs, err := runWithEvents(t, Options{Model: turns(answer("x", tc.in, tc.out))}, "q")
			if err != nil {
				t.Fatal(err)
			}
			var data map[string]any
			for _, e := range evs {
				if e.Type == events.IterationCompleted {
					data = e.Data
				}
			}
			if data == nil {
				t.Fatal("no iteration_completed event")
			}
			for key, want := range tc.want {
				if _, got := data[key]; got != want {
					t.Errorf("%s present = %t, want %t; data %v", key, got, want, data)
				}
			}
		})
	}
}

package config

import "testing"

// TestValueStart: valueStart turns the offset encoding/json reports after a
// value into the value's first byte. Where no token ends at that offset
// (the walk fails first, or the offset falls between tokens) it points at
// the byte before the offset, the last byte of the value if one ends there,
// and never past the offset.
func TestValueStart(t *testing.T) {
	for _, tt := range []struct {
		data string
		end  int64
		want int
	}{
		{`{"a": "x"}`, 9, 6},     // a string, past the separators
		{`{"a": 1e400}`, 11, 6},  // a number beyond float64
		{`[1, {"b": []}]`, 5, 4}, // an object: its opening brace
		{`{"a": tru}`, 9, 8},     // the walk fails before the offset
		{`{"a": [1, 2]}`, 9, 8},  // the offset ends no token
		{`{"a": 1}`, 2, 1},       // inside the first key
	} {
		if got := valueStart([]byte(tt.data), tt.end); got != tt.want {
			t.Errorf("valueStart(%s, %d) = %d, want %d", tt.data, tt.end, got, tt.want)
		}
	}
}

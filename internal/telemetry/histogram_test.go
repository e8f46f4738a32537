package telemetry

import (
	"slices"
	"testing"
)

// A value on a bound counts in the bucket that bound closes, as the
// OpenTelemetry SDK's explicit-bucket aggregation does: (lower, upper].
func TestHistogramBuckets(t *testing.T) {
	t.Parallel()
	bounds := []float64{1, 4, 16}
	for _, tc := range []struct {
		v    float64
		want []uint64
	}{
		{0, []uint64{1, 0, 0, 0}},
		{1, []uint64{1, 0, 0, 0}},
		{1.5, []uint64{0, 1, 0, 0}},
		{4, []uint64{0, 1, 0, 0}},
		{16, []uint64{0, 0, 1, 0}},
		{17, []uint64{0, 0, 0, 1}},
	} {
		h := histogram{counts: make([]uint64, len(bounds)+1)}
		h.add(bounds, tc.v)
		if !slices.Equal(h.counts, tc.want) || h.min != tc.v || h.max != tc.v || h.sum != tc.v || h.count != 1 {
			t.Errorf("%g: %+v, want counts %v", tc.v, h, tc.want)
		}
	}
	h := histogram{counts: make([]uint64, len(bounds)+1)}
	for _, v := range []float64{5, 2, 9} {
		h.add(bounds, v)
	}
	if h.min != 2 || h.max != 9 || h.sum != 16 || h.count != 3 {
		t.Errorf("min %g max %g sum %g count %d, want 2 9 16 3", h.min, h.max, h.sum, h.count)
	}
}

// Recording into a series already seen allocates nothing: a run's
// metrics cost a map lookup and a few additions per measurement.
func TestRecordAllocatesNothing(t *testing.T) {
	m := &meter{series: map[series]*histogram{}}
	k := series{metric: tokenUsage, op: OpChat, provider: "openai", model: "m", addr: "127.0.0.1", port: 8080, tokenType: "input"}
	m.record(k, 1)
	if n := testing.AllocsPerRun(100, func() { m.record(k, 300) }); n != 0 {
		t.Errorf("%v allocations per measurement, want 0", n)
	}
}

func BenchmarkRecord(b *testing.B) {
	m := &meter{series: map[series]*histogram{}}
	k := series{metric: operationDuration, op: OpChat, provider: "openai", model: "m", addr: "127.0.0.1", port: 8080}
	b.ReportAllocs()
	for b.Loop() {
		m.record(k, 0.25)
	}
}

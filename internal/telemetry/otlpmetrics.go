package telemetry

import (
	"encoding/binary"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// The OTLP protobuf encoding of an ExportMetricsServiceRequest
// (opentelemetry-proto, collector/metrics/v1 and metrics/v1), in the way
// of otlp.go: explicit-bucket histograms only, which is all odek records.

// AggregationTemporality values.
const (
	temporalityDelta      = 1
	temporalityCumulative = 2
)

// metricData is one instrument's points.
type metricData struct {
	inst   *instrument
	points []point
}

// point is one series' histogram.
type point struct {
	attrs []attribute.KeyValue
	h     histogram
}

// encodeMetrics is the request body for ms, all of one resource and of
// odek's scope, every point from start to now.
func encodeMetrics(res []attribute.KeyValue, schema, version string, ms []metricData, start, now time.Time, delta bool) []byte {
	temporality := uint64(temporalityCumulative)
	if delta {
		temporality = temporalityDelta
	}
	t0, t1 := unixNano(start.UnixNano()), unixNano(now.UnixNano())
	var sm []byte
	var scope []byte
	scope = appendString(scope, 1, ScopeName)
	scope = appendString(scope, 2, version)
	sm = appendMessage(sm, 1, scope) // ScopeMetrics.scope
	for _, md := range ms {
		var hist []byte
		for _, p := range md.points {
			hist = appendMessage(hist, 1, encodePoint(p, md.inst.bounds, t0, t1)) // Histogram.data_points
		}
		hist = appendVarint(hist, 2, temporality) // Histogram.aggregation_temporality
		var m []byte
		m = appendString(m, 1, md.inst.name)
		m = appendString(m, 2, md.inst.desc)
		m = appendString(m, 3, md.inst.unit)
		m = appendMessage(m, 9, hist) // Metric.histogram
		sm = appendMessage(sm, 2, m)  // ScopeMetrics.metrics
	}
	sm = appendString(sm, 3, schema)
	var rm []byte
	rm = appendMessage(rm, 1, appendKeyValues(nil, 1, res)) // ResourceMetrics.resource
	rm = appendMessage(rm, 2, sm)                           // ResourceMetrics.scope_metrics
	rm = appendString(rm, 3, schema)
	return appendMessage(nil, 1, rm) // ExportMetricsServiceRequest.resource_metrics
}

// encodePoint is one HistogramDataPoint.
func encodePoint(p point, bounds []float64, start, now uint64) []byte {
	var b []byte
	b = appendFixed64(b, 2, start)
	b = appendFixed64(b, 3, now)
	b = appendFixed64(b, 4, p.h.count)
	b = appendDouble(b, 5, p.h.sum) // optional: sent even when zero
	var counts []byte
	for _, c := range p.h.counts {
		counts = binary.LittleEndian.AppendUint64(counts, c)
	}
	b = appendBytes(b, 6, counts) // bucket_counts, packed
	var bs []byte
	for _, x := range bounds {
		bs = binary.LittleEndian.AppendUint64(bs, math.Float64bits(x))
	}
	b = appendBytes(b, 7, bs) // explicit_bounds, packed
	b = appendKeyValues(b, 9, p.attrs)
	b = appendDouble(b, 11, p.h.min)
	return appendDouble(b, 12, p.h.max)
}

// appendDouble appends a double even when it is zero: the point's sum,
// min and max are optional fields, whose presence says they are known.
func appendDouble(b []byte, field int, v float64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), math.Float64bits(v))
}

package telemetry

import (
	"encoding/binary"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The OTLP protobuf encoding of an ExportTraceServiceRequest
// (opentelemetry-proto, collector/trace/v1), written with the wire format's
// few rules instead of generated code: field numbers below are the .proto
// files', each comment naming its message.

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// Span flags (Span.flags): the low byte is the W3C trace flags; the next
// bits say whether the parent is remote.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// encodeSpans is the request body for spans, all of one resource, grouped
// by instrumentation scope in the order they first appear.
func encodeSpans(res []attribute.KeyValue, resSchema string, spans []sdktrace.ReadOnlySpan) []byte {
	type scopeKey struct{ name, version, schema string }
	var order []scopeKey
	groups := map[scopeKey][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		sc := s.InstrumentationScope()
		k := scopeKey{sc.Name, sc.Version, sc.SchemaURL}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	var rs []byte
	rs = appendMessage(rs, 1, appendKeyValues(nil, 1, res)) // ResourceSpans.resource: Resource.attributes
	for _, k := range order {
		var ss []byte
		var scope []byte
		scope = appendString(scope, 1, k.name)
		scope = appendString(scope, 2, k.version)
		ss = appendMessage(ss, 1, scope) // ScopeSpans.scope
		for _, s := range groups[k] {
			ss = appendMessage(ss, 2, encodeSpan(s)) // ScopeSpans.spans
		}
		ss = appendString(ss, 3, k.schema)
		rs = appendMessage(rs, 2, ss) // ResourceSpans.scope_spans
	}
	rs = appendString(rs, 3, resSchema)
	return appendMessage(nil, 1, rs) // ExportTraceServiceRequest.resource_spans
}

// encodeSpan is one Span message.
func encodeSpan(s sdktrace.ReadOnlySpan) []byte {
	sc, parent := s.SpanContext(), s.Parent()
	tid, sid := sc.TraceID(), sc.SpanID()
	var b []byte
	b = appendBytes(b, 1, tid[:])
	b = appendBytes(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	if parent.IsValid() {
		psid := parent.SpanID()
		b = appendBytes(b, 4, psid[:])
	}
	b = appendString(b, 5, s.Name())
	b = appendVarint(b, 6, uint64(spanKind(s.SpanKind())))
	b = appendFixed64(b, 7, unixNano(s.StartTime().UnixNano()))
	b = appendFixed64(b, 8, unixNano(s.EndTime().UnixNano()))
	b = appendKeyValues(b, 9, s.Attributes())
	b = appendVarint(b, 10, uint64(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		var e []byte
		e = appendFixed64(e, 1, unixNano(ev.Time.UnixNano()))
		e = appendString(e, 2, ev.Name)
		e = appendKeyValues(e, 3, ev.Attributes)
		e = appendVarint(e, 4, uint64(ev.DroppedAttributeCount))
		b = appendMessage(b, 11, e)
	}
	b = appendVarint(b, 12, uint64(s.DroppedEvents()))
	for _, l := range s.Links() {
		var m []byte
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		m = appendBytes(m, 1, ltid[:])
		m = appendBytes(m, 2, lsid[:])
		m = appendString(m, 3, l.SpanContext.TraceState().String())
		m = appendKeyValues(m, 4, l.Attributes)
		m = appendVarint(m, 5, uint64(l.DroppedAttributeCount))
		m = appendFixed32(m, 6, spanFlags(l.SpanContext))
		b = appendMessage(b, 13, m)
	}
	b = appendVarint(b, 14, uint64(s.DroppedLinks()))
	var st []byte
	st = appendString(st, 2, s.Status().Description)
	st = appendVarint(st, 3, uint64(statusCode(s.Status().Code)))
	b = appendMessage(b, 15, st)
	flags := uint32(sc.TraceFlags()) | flagHasIsRemote
	if parent.IsRemote() {
		flags |= flagIsRemote
	}
	return appendFixed32(b, 16, flags)
}

func spanFlags(sc trace.SpanContext) uint32 {
	f := uint32(sc.TraceFlags()) | flagHasIsRemote
	if sc.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// spanKind is OTLP's Span.SpanKind: unspecified 0, internal 1, server 2,
// client 3, producer 4, consumer 5 (the API's order, less one).
func spanKind(k trace.SpanKind) int {
	switch k {
	case trace.SpanKindInternal:
		return 1
	case trace.SpanKindServer:
		return 2
	case trace.SpanKindClient:
		return 3
	case trace.SpanKindProducer:
		return 4
	case trace.SpanKindConsumer:
		return 5
	}
	return 0
}

// statusCode is OTLP's Status.StatusCode: unset 0, ok 1, error 2.
func statusCode(c codes.Code) int {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}

func unixNano(n int64) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(n)
}

// appendKeyValues appends each attribute as a KeyValue in field.
func appendKeyValues(b []byte, field int, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		var m []byte
		m = appendString(m, 1, string(kv.Key))
		m = appendMessage(m, 2, anyValue(kv.Value)) // KeyValue.value
		b = appendMessage(b, field, m)
	}
	return b
}

// anyValue is an AnyValue: string 1, bool 2, int 3, double 4, array 5.
func anyValue(v attribute.Value) []byte {
	var b []byte
	switch v.Type() {
	case attribute.BOOL:
		return appendBool(b, 2, v.AsBool())
	case attribute.INT64:
		return binary.AppendUvarint(appendTag(b, 3, wireVarint), uint64(v.AsInt64())) // a zero too: oneof
	case attribute.FLOAT64:
		return appendFixed64(b, 4, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		return appendStringAlways(b, 1, v.AsString())
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), attribute.StringValue)
	}
	return appendStringAlways(b, 1, v.String())
}

// appendArray is AnyValue.array_value: an ArrayValue of values.
func appendArray[T any](b []byte, vs []T, conv func(T) attribute.Value) []byte {
	var arr []byte
	for _, v := range vs {
		arr = appendMessage(arr, 1, anyValue(conv(v)))
	}
	return appendMessage(b, 5, arr)
}

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendVarint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b // proto3: a zero scalar is not sent
	}
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

func appendBool(b []byte, field int, v bool) []byte {
	b = appendTag(b, field, wireVarint)
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), v)
}

func appendFixed32(b []byte, field int, v uint32) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint32(appendTag(b, field, wireFixed32), v)
}

func appendString(b []byte, field int, s string) []byte {
	if s == "" {
		return b
	}
	return appendStringAlways(b, field, s)
}

// appendStringAlways sends an empty string too: inside a oneof (AnyValue)
// the field's presence is the value's type.
func appendStringAlways(b []byte, field int, s string) []byte {
	b = binary.AppendUvarint(appendTag(b, field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, field int, p []byte) []byte {
	b = binary.AppendUvarint(appendTag(b, field, wireBytes), uint64(len(p)))
	return append(b, p...)
}

// appendMessage appends an embedded message, even an empty one: its
// presence can matter (Span.status, KeyValue.value).
func appendMessage(b []byte, field int, m []byte) []byte {
	return appendBytes(b, field, m)
}

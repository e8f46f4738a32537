package events

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"
)

type nopSink struct{}

func (nopSink) Write(*Event) error { return nil }

// BenchmarkEmit measures the loop side: stamping and queueing one event. The
// one allocation is the *Event itself.
func BenchmarkEmit(b *testing.B) {
	e := NewEmitter(Options{RunID: fixedRunID, Sinks: []Sink{nopSink{}}, Buffer: 1 << 16})
	e.SetSessionID("s")
	data := map[string]any{"call_id": "c", "duration_ms": 3}
	b.ReportAllocs()
	for b.Loop() {
		e.Emit(ToolCallCompleted, 1, "shell", data)
	}
	b.StopTimer()
	if err := e.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(e.Dropped()), "dropped")
}

// BenchmarkJSONLWrite measures sink throughput on a file (fsyncs by group
// commit, on the sink's syncer).
func BenchmarkJSONLWrite(b *testing.B) {
	s, err := OpenJSONL(context.Background(), filepath.Join(b.TempDir(), "e.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	ev := &Event{Schema: Schema, Type: ToolCallCompleted, RunID: fixedRunID, Iteration: 3, Tool: "shell",
		Timestamp: time.Now().UTC(), Data: map[string]any{"call_id": "call_1", "duration_ms": 412, "result_bytes": 812, "artifact_count": 1}}
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		if err := s.Write(ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkStreamWrite measures the stream-json sink: the same line, no
// fsync (stdout is a pipe or terminal).
func BenchmarkStreamWrite(b *testing.B) {
	s := NewStreamSink(io.Discard)
	ev := &Event{Schema: Schema, Type: ToolCallCompleted, RunID: fixedRunID, Iteration: 3, Tool: "shell",
		Timestamp: time.Now().UTC(), Data: map[string]any{"call_id": "call_1", "duration_ms": 412, "result_bytes": 812, "artifact_count": 1}}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Write(ev); err != nil {
			b.Fatal(err)
		}
	}
}

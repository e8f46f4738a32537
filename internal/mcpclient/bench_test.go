package mcpclient

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// p50 reports the median of individual timings as a custom metric.
func reportP50(b *testing.B, ds []time.Duration, unit string, scale time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2])/float64(scale), unit)
}

func BenchmarkCallRoundTrip(b *testing.B) {
	f := startFixture(b, ServerConfig{})
	ctx := context.Background()
	args := json.RawMessage(`{"msg":"hi"}`)
	ds := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if _, err := f.c.CallToolResult(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportP50(b, ds, "p50-µs", time.Microsecond)
}

func BenchmarkSpawnDiscover(b *testing.B) {
	root := b.TempDir()
	cfg := ServerConfig{Command: fixtureBin, Args: []string{"-root", root}}
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		c, err := Connect(context.Background(), "fx", cfg, Options{Environ: testEnviron})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Discover(context.Background()); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		_ = c.Close()
	}
	reportP50(b, ds, "p50-ms", time.Millisecond)
}

func BenchmarkLargeResult10MiB(b *testing.B) {
	f := startFixture(b, ServerConfig{MaxResponseBytes: 16 << 20})
	args := json.RawMessage(`{"n":10485760}`)
	b.SetBytes(10 << 20)
	for b.Loop() {
		r, err := f.c.CallToolResult(context.Background(), "large_result", args)
		if err != nil || !r.Truncated {
			b.Fatal(err)
		}
	}
}

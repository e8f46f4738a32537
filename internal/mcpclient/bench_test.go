package mcpclient

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
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

// BenchmarkCallRoundTripMinimalServer is the round trip against the demo's
// minimal synchronous server: the fixture answers each call on a new
// goroutine, which costs it ~70 µs, so this is the client's own figure.
func BenchmarkCallRoundTripMinimalServer(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "wordcount")
	build := exec.Command("go", "build", "-o", bin, "../../testdata/demo/wordcount")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the demo server: %v\n%s", err, out)
	}
	ctx := context.Background()
	c, err := Connect(ctx, "wc", ServerConfig{Command: bin}, Options{Stderr: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Discover(ctx); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"hi there"}`)
	ds := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if _, err := c.CallToolResult(ctx, "word_count", args); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportP50(b, ds, "p50-µs", time.Microsecond)
}

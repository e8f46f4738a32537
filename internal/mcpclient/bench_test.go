package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/testbin"
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
		if _, err := f.c.callToolResult(ctx, "echo", args); err != nil {
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
		r, err := f.c.callToolResult(context.Background(), "large_result", args)
		if err != nil || !r.Truncated {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallRoundTripMinimalServer is the round trip against the demo's
// minimal synchronous server: the fixture answers each call on a new
// goroutine, which costs it ~70 µs, so this is the client's own figure.
func BenchmarkCallRoundTripMinimalServer(b *testing.B) {
	bin := testbin.Build(b, "wordcount", "./testdata/demo/wordcount")
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
		if _, err := c.callToolResult(ctx, "word_count", args); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportP50(b, ds, "p50-µs", time.Microsecond)
}

// BenchmarkResult20MiB is the bounded-memory promise: a tool result of
// 20 MiB on one line, under the default 10 MiB max_response_bytes (rejected
// once the limit is passed, the connection closed) and under a raised
// 32 MiB limit (read, cut to max_result_chars, kept whole as an artifact).
// It reports the time of the call and the bytes this process allocated for
// it; each call gets a fresh server, since a rejected line closes it.
func BenchmarkResult20MiB(b *testing.B) {
	for _, bc := range []struct {
		name  string
		limit int64
		tool  string
	}{{"rejected-default-limit", 0, "huge_line"}, {"accepted-32MiB-limit", 32 << 20, "large_result"}} {
		b.Run(bc.name, func(b *testing.B) {
			args := json.RawMessage(`{"n":20971520}`)
			var took time.Duration
			var alloc uint64
			for b.Loop() {
				b.StopTimer()
				f := startFixture(b, ServerConfig{MaxResponseBytes: bc.limit})
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()
				start := time.Now()
				r, err := f.c.callToolResult(context.Background(), bc.tool, args)
				took += time.Since(start)
				b.StopTimer()
				runtime.ReadMemStats(&after)
				alloc += after.TotalAlloc - before.TotalAlloc
				var tl *ResponseTooLargeError
				if bc.limit == 0 && !errors.As(err, &tl) || bc.limit > 0 && (err != nil || !r.Truncated) {
					b.Fatalf("err = %v", err)
				}
				_ = f.c.Close()
				b.StartTimer()
			}
			n := float64(b.N)
			b.ReportMetric(float64(took.Microseconds())/n/1000, "ms/call")
			b.ReportMetric(float64(alloc)/n/(1<<20), "MiB-alloc/call")
		})
	}
}

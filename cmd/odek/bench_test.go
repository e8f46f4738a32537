package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/testbin"
)

// BenchmarkVersionStart is the process start of `odek version`.
func BenchmarkVersionStart(b *testing.B) {
	odek := testbin.Release(b, "odek", "./cmd/odek")
	for b.Loop() {
		if out, err := exec.Command(odek, "version").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// firstRequestServer records when the first request of a run arrived and how
// long the fake LLM spent answering requests.
type firstRequestServer struct {
	mu     sync.Mutex
	first  time.Time
	served time.Duration
}

// runStats is what one measured run reports.
type runStats struct {
	firstRequest time.Duration // exec to the first LLM request
	serverTime   time.Duration // time the fake LLM spent in its handler
	rssKiB       int64         // peak RSS, when measured
	cpu          time.Duration // user+system CPU of the process and the children it reaped
}

// BenchmarkFirstRequest measures start-up as a user feels it: from exec of
// `odek run` with one MCP server configured (spawned, initialized, listed)
// to the first request reaching the LLM endpoint, next to the same figure
// for testdata/bench/bareloop (the least a Go loop does before its first
// request: config, spawn, initialize, list, send) and their ratio, which the
// speed contract holds to 1.2. It also reports, for a
// 20-iteration run with one MCP call per iteration, the peak RSS, the wall
// time per iteration without the fake LLM's own time, and the CPU time per
// iteration: the CPU of that run less that of a one-request run, over the
// 19 iterations between them, which leaves out start-up and exit and, unlike
// wall time, hardly moves when other work shares the machine.
func BenchmarkFirstRequest(b *testing.B) {
	odek := testbin.Release(b, "odek", "./cmd/odek")
	wc := testbin.Release(b, "wordcount", "./testdata/demo/wordcount")
	home := b.TempDir()
	cfg := fmt.Sprintf(`{"mcp_servers": {"demo": {"command": %q, "auto_approve": true}}}`, wc)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	// odek and the bare loop alternate, so that a busy machine slows both alike.
	bare := testbin.Release(b, "bareloop", "./testdata/bench/bareloop")
	b.Run("to-first-llm-request", func(b *testing.B) {
		var total, bareTotal time.Duration
		for b.Loop() {
			total += runAgainst(b, []string{odek, "run", "-q", "task"}, home, answerScript(0), false).firstRequest
			bareTotal += runAgainst(b, []string{bare}, home, answerScript(0), false).firstRequest
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/first-request")
		b.ReportMetric(float64(bareTotal.Microseconds())/float64(b.N)/1000, "ms/bare-loop-first-request")
		b.ReportMetric(float64(total)/float64(bareTotal), "x-bare-loop")
	})
	b.Run("20-iterations", func(b *testing.B) {
		var rss int64
		var total, server, cpu time.Duration
		for b.Loop() {
			start := time.Now()
			r := runAgainst(b, []string{odek, "run", "-q", "task"}, home, answerScript(19), true)
			total += time.Since(start) - r.firstRequest
			server += r.serverTime
			rss = max(rss, r.rssKiB)
			cpu += r.cpu - runAgainst(b, []string{odek, "run", "-q", "task"}, home, answerScript(0), true).cpu // both under GNU time
		}
		// From the first request to exit, minus the time the fake LLM server
		// spent answering: odek's own per-iteration cost plus one MCP call.
		perIter := float64((total - server).Microseconds()) / float64(b.N) / 20 / 1000
		b.ReportMetric(perIter, "ms/iter-without-llm")
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/19/1000, "ms-cpu/iter")
		if rss > 0 {
			b.ReportMetric(float64(rss)/1024, "MiB-maxrss")
		}
	})
}

// answerScript calls the MCP tool on n turns, then answers.
func answerScript(n int) *fakellm.Script {
	var turns []map[string]any
	for i := range n {
		turns = append(turns, map[string]any{"tool_calls": []any{map[string]any{
			"id": fmt.Sprint("c", i), "name": "demo__word_count", "arguments": map[string]any{"text": fmt.Sprint("one two three ", i)}}}})
	}
	turns = append(turns, map[string]any{"content": "done"})
	raw, _ := json.Marshal(map[string]any{"turns": turns})
	s, err := fakellm.ParseScript(raw)
	if err != nil {
		panic(err)
	}
	return s
}

// runAgainst runs argv (odek run, or the bare loop) once against a fresh
// fake server.
func runAgainst(b *testing.B, argv []string, home string, script *fakellm.Script, measureRSS bool) runStats {
	fs := &firstRequestServer{}
	h := fakellm.New(script).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		fs.mu.Lock()
		if fs.first.IsZero() {
			fs.first = t0
		}
		fs.mu.Unlock()
		h.ServeHTTP(w, r)
		fs.mu.Lock()
		fs.served += time.Since(t0)
		fs.mu.Unlock()
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The peak RSS comes from GNU time: rusage of a child started directly
	// from this (much larger) test process would report this process's peak,
	// since Linux keeps the high-water mark across vfork and exec.
	timeFile := filepath.Join(b.TempDir(), "rss")
	args := argv
	if _, err := os.Stat("/usr/bin/time"); err == nil && measureRSS {
		args = append([]string{"/usr/bin/time", "-f", "%M", "-o", timeFile}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = []string{"ODEK_HOME=" + home, "HOME=" + home, "ODEK_BASE_URL=" + srv.URL + "/v1", "PATH=" + os.Getenv("PATH")}
	// ODEK_SPEED_ENV adds variables to every measured run (space-separated
	// NAME=value): OTEL_EXPORTER_OTLP_ENDPOINT=… measures a traced run.
	cmd.Env = append(cmd.Env, strings.Fields(os.Getenv("ODEK_SPEED_ENV"))...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", filepath.Base(argv[0]), err, out)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var rss int64
	if raw, err := os.ReadFile(timeFile); err == nil {
		rss, _ = strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	}
	return runStats{firstRequest: fs.first.Sub(start), serverTime: fs.served, rssKiB: rss,
		cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// BenchmarkVersionInit is the work of the package initializers every odek
// process runs before main, summed from GODEBUG=inittrace=1 of `odek
// version`: clock time, heap bytes and allocations per start.
func BenchmarkVersionInit(b *testing.B) {
	odek := testbin.Release(b, "odek", "./cmd/odek")
	var clock float64
	var heap, allocs int64
	for b.Loop() {
		c, h, a := versionInitTrace(b, odek)
		clock, heap, allocs = clock+c, heap+h, allocs+a
	}
	n := float64(b.N)
	b.ReportMetric(clock/n, "init-ms")
	b.ReportMetric(float64(heap)/n/1024, "init-KiB")
	b.ReportMetric(float64(allocs)/n, "init-allocs")
}

// sumInitTrace adds up the lines "init PKG @T ms, C ms clock, B bytes, A
// allocs" of a GODEBUG=inittrace=1 trace.
func sumInitTrace(trace string) (clockMS float64, heap, allocs int64, err error) {
	lines := 0
	for line := range strings.Lines(trace) {
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		c, err1 := strconv.ParseFloat(f[4], 64)
		h, err2 := strconv.ParseInt(f[7], 10, 64)
		a, err3 := strconv.ParseInt(f[9], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return 0, 0, 0, fmt.Errorf("unreadable inittrace line %q", line)
		}
		clockMS, heap, allocs, lines = clockMS+c, heap+h, allocs+a, lines+1
	}
	if lines == 0 {
		return 0, 0, 0, fmt.Errorf("no inittrace lines in %q", trace)
	}
	return clockMS, heap, allocs, nil
}

// versionInitTrace runs `odek version` once under GODEBUG=inittrace=1 and
// sums its package initializers: clock ms, heap bytes, allocations.
func versionInitTrace(b *testing.B, odek string) (clock float64, heap, allocs int64) {
	b.Helper()
	cmd := exec.Command(odek, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace strings.Builder
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		b.Fatalf("%v: %s", err, trace.String())
	}
	c, h, a, err := sumInitTrace(trace.String())
	if err != nil {
		b.Fatal(err)
	}
	return c, h, a
}

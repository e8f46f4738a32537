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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
)

// built caches binaries compiled once per test process: benchmarks measure
// the real executable, as users run it.
var (
	built   = map[string]string{}
	buildMu sync.Mutex
)

func buildBinary(b *testing.B, pkg, name string) string {
	b.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	dir, err := os.MkdirTemp("", "odek-bench-")
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = filepath.Join("..", "..")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	built[pkg] = out
	return out
}

// BenchmarkVersionStart is the process start of `odek version`.
func BenchmarkVersionStart(b *testing.B) {
	odek := buildBinary(b, "./cmd/odek", "odek")
	for b.Loop() {
		if out, err := exec.Command(odek, "version").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// firstRequestServer serves a script and records when the first request of
// each run arrived.
type firstRequestServer struct {
	mu    sync.Mutex
	first time.Time
}

// BenchmarkFirstRequest measures start-up as a user feels it: from exec of
// `odek run` with one MCP server configured (spawned, initialized, listed)
// to the first request reaching the LLM endpoint. It also reports the peak
// RSS of a 20-iteration run with one MCP call per iteration.
func BenchmarkFirstRequest(b *testing.B) {
	odek := buildBinary(b, "./cmd/odek", "odek")
	wc := buildBinary(b, "./testdata/demo/wordcount", "wordcount")
	home := b.TempDir()
	cfg := fmt.Sprintf(`{"mcp_servers": {"demo": {"command": %q, "auto_approve": true}}}`, wc)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Run("to-first-llm-request", func(b *testing.B) {
		var total time.Duration
		for b.Loop() {
			d, _ := runAgainst(b, odek, home, answerScript(0))
			total += d
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/first-request")
	})
	b.Run("20-iterations", func(b *testing.B) {
		var rss int64
		for b.Loop() {
			_, r := runAgainst(b, odek, home, answerScript(19))
			rss = max(rss, r)
		}
		b.ReportMetric(float64(rss)/1024, "MiB-maxrss")
	})
}

// answerScript calls the MCP tool on n turns, then answers.
func answerScript(n int) *fakellm.Script {
	var turns []map[string]any
	for i := range n {
		turns = append(turns, map[string]any{"tool_calls": []any{map[string]any{
			"id": fmt.Sprint("c", i), "name": "demo__word_count", "arguments": map[string]any{"text": "one two three"}}}})
	}
	turns = append(turns, map[string]any{"content": "done"})
	raw, _ := json.Marshal(map[string]any{"turns": turns})
	s, err := fakellm.ParseScript(raw)
	if err != nil {
		panic(err)
	}
	return s
}

// runAgainst runs odek once against a fresh fake server; it returns the time
// from exec to the first LLM request and the child's peak RSS in KiB.
func runAgainst(b *testing.B, odek, home string, script *fakellm.Script) (time.Duration, int64) {
	fs := &firstRequestServer{}
	h := fakellm.New(script).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		if fs.first.IsZero() {
			fs.first = time.Now()
		}
		fs.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, odek, "run", "-q", "task")
	cmd.Env = []string{"ODEK_HOME=" + home, "HOME=" + home, "ODEK_BASE_URL=" + srv.URL + "/v1", "PATH=" + os.Getenv("PATH")}
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("odek run: %v\n%s", err, out)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.first.Sub(start), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

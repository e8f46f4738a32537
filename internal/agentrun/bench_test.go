package agentrun

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/runview"
	"github.com/odek-run/odek/internal/testbin"
)

// wordCountScript calls the demo's word_count tool on n turns, then
// answers.
func wordCountScript(b *testing.B, n int) *fakellm.Script {
	var turns []map[string]any
	for i := range n {
		turns = append(turns, map[string]any{"tool_calls": []any{map[string]any{
			"id": fmt.Sprint("c", i), "name": "demo__word_count", "arguments": map[string]any{"text": fmt.Sprint("one two three ", i)}}}})
	}
	turns = append(turns, map[string]any{"content": "done"})
	raw, _ := json.Marshal(map[string]any{"turns": turns})
	s, err := fakellm.ParseScript(raw)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkRunInProcess runs a run (odek run's) in this process against
// the fake LLM and one real MCP server (stdio): 20 iterations, one MCP call
// each. It exists to profile odek's own per-iteration cost (-cpuprofile);
// ODEK_BENCH_EVENTS=1 adds --events-jsonl.
func BenchmarkRunInProcess(b *testing.B) {
	wc := testbin.Release(b, "wordcount", "./testdata/demo/wordcount")
	home := b.TempDir()
	cfg := fmt.Sprintf(`{"mcp_servers": {"demo": {"command": %q, "auto_approve": true}}}`, wc)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	// Each wire in turn; allocs/op is per 20-iteration run and counts the
	// in-process fake server's allocations too (its Responses side parses
	// every input item), so the wires' client-side allocations are compared
	// by internal/llm BenchmarkWireCall.
	for _, wire := range []string{"chat", "responses"} {
		b.Run(wire, func(b *testing.B) {
			b.ReportAllocs()
			runInProcess(b, home, wire)
		})
	}
}

func runInProcess(b *testing.B, home, wire string) {
	var served time.Duration
	for b.Loop() {
		var runServed time.Duration
		h := fakellm.New(wordCountScript(b, 19)).Handler()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t0 := time.Now()
			h.ServeHTTP(w, r)
			runServed += time.Since(t0)
		}))
		ios, _, _, _ := iostreams.Test()
		ios.LookupEnv = iostreams.EnvMap(map[string]string{"ODEK_HOME": home, "HOME": home, "ODEK_BASE_URL": srv.URL + "/v1", "ODEK_LLM_WIRE_API": wire})
		ios.Getwd = func() (string, error) { return home, nil }
		o := Options{IO: ios, Task: "task", Output: runview.Text, Quiet: true, Cassette: Cassette{Mode: ReplayStrict}}
		if os.Getenv("ODEK_BENCH_EVENTS") != "" { // profile --events-jsonl too
			o.EventsPath = filepath.Join(b.TempDir(), "ev.jsonl")
		}
		ctx := context.Background()
		runCtx, r, err := Setup(ctx, o)
		if err == nil {
			err = r.Execute(ctx, runCtx)
			r.Close(runCtx)
		}
		srv.Close()
		if err != nil {
			b.Fatal(err)
		}
		served += runServed
	}
	b.ReportMetric(float64((b.Elapsed()-served).Microseconds())/float64(b.N)/20/1000, "ms/iter-without-llm")
}

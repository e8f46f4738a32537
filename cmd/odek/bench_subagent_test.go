package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/subagent"
	"github.com/odek-run/odek/internal/testbin"
)

// BenchmarkDelegateToFirstRequest measures what delegating costs before a
// child can think: from the delegate_tasks call to each child's first
// request reaching the LLM endpoint (task file, key handover, fork/exec of
// the real binary, config, set-up). tasks children start per call, within
// the semaphore's 3 slots.
func BenchmarkDelegateToFirstRequest(b *testing.B) {
	odek := testbin.Release(b, "odek", "./cmd/odek")
	for _, tasks := range []int{1, 3} {
		b.Run(fmt.Sprintf("tasks=%d", tasks), func(b *testing.B) {
			home, work := b.TempDir(), b.TempDir()
			var mu sync.Mutex
			var arrivals []time.Time
			turns := make([]fakellm.Turn, 0, 4096)
			for range cap(turns) {
				turns = append(turns, fakellm.Turn{Content: "done", Usage: &fakellm.ScriptUsage{PromptTokens: 10, CompletionTokens: 1}})
			}
			h := fakellm.New(&fakellm.Script{Turns: turns}).Handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				arrivals = append(arrivals, time.Now())
				mu.Unlock()
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			tool := subagent.NewTool(subagent.Options{
				Runner:        &subagent.LocalRunner{Path: odek},
				Semaphore:     subagent.NewSemaphore(3, 0),
				Settings:      subagent.Settings{MaxDepth: 2, TimeoutSeconds: 60},
				ArtifactsHome: filepath.Join(home, "artifacts"),
				TempDir:       b.TempDir(),
				Workspace:     work,
				Env:           []string{"ODEK_HOME=" + home, "HOME=" + home, "ODEK_BASE_URL=" + srv.URL + "/v1", "PATH=" + os.Getenv("PATH")},
				APIKey:        "sk-bench",
			})
			specs := make([]string, tasks)
			for i := range specs {
				specs[i] = fmt.Sprintf(`{"goal":"task %d"}`, i)
			}
			args := json.RawMessage(`{"tasks":[` + strings.Join(specs, ",") + `]}`)
			var total time.Duration
			for b.Loop() {
				mu.Lock()
				arrivals = arrivals[:0]
				mu.Unlock()
				start := time.Now()
				out, err := tool.Call(context.Background(), args)
				if err != nil || strings.Count(out, "status: success") != tasks {
					b.Fatalf("delegate_tasks: %v\n%s", err, out)
				}
				mu.Lock()
				for _, t := range arrivals {
					total += t.Sub(start)
				}
				mu.Unlock()
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N*tasks)/1000, "ms/child-first-request")
		})
	}
}

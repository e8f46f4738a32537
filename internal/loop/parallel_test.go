package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/odek-run/odek/internal/llm"
)

// TestMaxToolParallelHolds: a batch wider than MaxToolParallel never has
// more calls running at once than the limit, and has as many as it allows.
// The tools block until the test releases them one at a time; in a
// synctest bubble, synctest.Wait returns only once every goroutine (the
// loop's included) is blocked, so the count it reads is the whole truth:
// a call the loop would start beyond the limit has started by then.
func TestMaxToolParallelHolds(t *testing.T) {
	t.Parallel()
	tests := []struct{ limit, batch, want int }{
		{1, 3, 1},
		{2, 5, 2},
		{3, 3, 3},
		{8, 4, 4},
		{0, 9, DefaultMaxToolParallel}, // unset: the default
	}
	for _, c := range tests {
		t.Run(fmt.Sprintf("limit %d batch %d", c.limit, c.batch), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var running, peak atomic.Int32
				release := make(chan struct{})
				block := funcTool{"block", func(ctx context.Context, _ json.RawMessage) (string, error) {
					n := running.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					defer running.Add(-1)
					select {
					case <-release:
						return "ok", nil
					case <-ctx.Done():
						return "", ctx.Err()
					}
				}}
				calls := make([]llm.ToolCall, c.batch)
				for i := range calls {
					calls[i] = tc(fmt.Sprintf("c%d", i), "block", "{}")
				}
				m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){callTools(10, 1, calls...), answer("done", 10, 1)}}
				done := make(chan error, 1)
				go func() {
					_, err := Run(t.Context(), Options{Model: m, ModelName: "m", Tools: mustRegistry(t, block),
						MaxToolParallel: c.limit}, "go")
					done <- err
				}()
				for finished := range c.batch {
					synctest.Wait()
					if got, want := int(running.Load()), min(c.want, c.batch-finished); got != want {
						t.Fatalf("after %d of %d calls returned: %d running, want %d", finished, c.batch, got, want)
					}
					release <- struct{}{}
				}
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				if int(peak.Load()) != c.want {
					t.Errorf("peak = %d, want %d", peak.Load(), c.want)
				}
			})
		})
	}
}

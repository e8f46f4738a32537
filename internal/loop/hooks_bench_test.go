package loop

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/llm"
)

// BenchmarkIterationHooks is the loop's cost per iteration (one model call,
// one tool call) with no hook configured (Options.Hooks nil, as cmd/odek
// leaves it then), with a PreToolUse hook whose matcher misses every call,
// and with one trivial command hook ("true") on every call; the last
// minus the first is what a trivial hook adds to a call (issue 37: under
// 5 ms).
func BenchmarkIterationHooks(b *testing.B) {
	echo := funcTool{"echo", func(context.Context, json.RawMessage) (string, error) { return "a short result", nil }}
	reg, _ := NewRegistry(echo)
	for _, bc := range []struct{ name, block string }{
		{"none", ""},
		{"miss", `{"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]}`},
		{"trivial", `{"PreToolUse": [{"matcher": "echo", "hooks": [{"type": "command", "command": "true"}]}]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const iters = 10
			m := &cyclingModel{iters: iters,
				call: &llm.Response{Message: llm.Message{Role: "assistant"}, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10, Present: true}},
				done: &llm.Response{Message: llm.Message{Role: "assistant", Content: "done"}, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10, Present: true}},
			}
			o := Options{Model: m, Tools: reg, MaxIterations: iters + 1}
			if bc.block != "" {
				c, _, err := hooks.Parse([]byte(bc.block))
				if err != nil {
					b.Fatal(err)
				}
				r := hooks.New(hooks.Options{Operator: c, Dir: b.TempDir(), TempDir: b.TempDir()})
				defer r.Close()
				o.Hooks = r
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Run(context.Background(), o, "task"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iters), "ns/iter")
		})
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/testbin"
)

// BenchmarkSandboxRun is the sandbox's cost on a 20-iteration run with one
// shell call (`true`) per iteration: the real binary with --sandbox off
// (the launcher still reaps) and with the default sandbox, alternating so
// that a busy machine slows both alike; ms/iter-without-llm excludes the
// fake LLM's own time.
func BenchmarkSandboxRun(b *testing.B) {
	odek := testbin.Release(b, "odek", "./cmd/odek")
	home := b.TempDir()
	var off, on time.Duration
	for b.Loop() {
		start := time.Now()
		r := runAgainst(b, []string{odek, "run", "-q", "--sandbox", "off", "task"}, home, shellScript(20), false)
		off += time.Since(start) - r.serverTime
		start = time.Now()
		r = runAgainst(b, []string{odek, "run", "-q", "task"}, home, shellScript(20), false)
		on += time.Since(start) - r.serverTime
	}
	b.ReportMetric(float64(off.Microseconds())/float64(b.N)/20/1000, "ms/iter-sandbox-off")
	b.ReportMetric(float64(on.Microseconds())/float64(b.N)/20/1000, "ms/iter-sandboxed")
}

// shellScript makes n turns of one shell call each, then answers.
func shellScript(n int) *fakellm.Script {
	var turns []map[string]any
	for i := range n {
		turns = append(turns, map[string]any{"tool_calls": []any{map[string]any{
			"id": fmt.Sprint("s", i), "name": "shell", "arguments": map[string]any{"command": "true", "description": "bench"}}}})
	}
	turns = append(turns, map[string]any{"content": "done"})
	raw, _ := json.Marshal(map[string]any{"turns": turns})
	s, err := fakellm.ParseScript(raw)
	if err != nil {
		panic(err)
	}
	return s
}

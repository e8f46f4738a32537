package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/telemetry"
)

// discardSink drops events: the benchmark measures the loop side of emitting.
type discardSink struct{}

func (discardSink) Write(*events.Event) error { return nil }

// cyclingModel calls one tool for iters-1 turns, then answers; it does no work
// of its own, so the benchmark measures the loop's overhead alone.
type cyclingModel struct {
	n, iters int
	call     *llm.Response
	done     *llm.Response
}

func (m *cyclingModel) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.n++
	if m.n%m.iters == 0 {
		return m.done, nil
	}
	r := *m.call
	r.Message.ToolCalls = []llm.ToolCall{tc(fmt.Sprint("c", m.n), "echo", `{"text":"hello"}`)}
	return &r, nil
}

// BenchmarkIteration reports the loop's own cost per iteration (one model call
// and one tool call) with 10, 100 and 1000 messages already in history.
func BenchmarkIteration(b *testing.B) {
	echo := funcTool{"echo", func(_ context.Context, args json.RawMessage) (string, error) {
		return "a short tool result of typical size, about one line long", nil
	}}
	reg, _ := NewRegistry(echo)
	for _, bc := range []struct {
		size           int
		events, traced bool
	}{{10, false, false}, {100, false, false}, {1000, false, false}, {100, true, false}, {100, false, true}} {
		size := bc.size
		name := fmt.Sprintf("history=%d/events=%v", size, bc.events)
		if bc.traced {
			name += "/traced" // spans exported to a collector that accepts everything
		}
		b.Run(name, func(b *testing.B) {
			base := make([]llm.Message, 0, size)
			base = append(base, llm.Message{Role: "system", Content: "you are a test"}, llm.Message{Role: "user", Content: "task"})
			for len(base) < size {
				base = append(base, llm.Message{Role: "assistant", Content: strings.Repeat("x", 200)}, llm.Message{Role: "user", Content: "more"})
			}
			const iters = 10
			m := &cyclingModel{iters: iters,
				call: &llm.Response{Message: llm.Message{Role: "assistant"}, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10, Present: true}},
				done: &llm.Response{Message: llm.Message{Role: "assistant", Content: "done"}, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10, Present: true}},
			}
			o := Options{Model: m, Tools: reg, MaxIterations: iters + 1}
			if bc.events {
				em := events.NewEmitter(events.Options{RunID: "r", Sinks: []events.Sink{discardSink{}}})
				defer em.Close(context.Background())
				o.Events = em
			}
			if bc.traced {
				o.Telemetry = acceptingTracer(b)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				h := &History{msgs: base[:len(base):len(base)], starts: make([]int, 0, len(base)+2*iters)}
				for i := range base {
					h.starts = append(h.starts, i)
				}
				if _, err := Continue(context.Background(), o, h); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iters), "ns/iter")
		})
	}
}

// history1000 is a 1,000-message history: system, task, then steps of an
// assistant message and one ~1 KiB tool result.
func history1000() *History {
	body := strings.Repeat("result line with some words in it\n", 30)
	h := NewHistory(sysMsg("You are odek."), userMsg("the task"))
	for i := 0; h.Len() < 1000; i++ {
		h.Append(toolStep(fmt.Sprint("g", i), 1, body)...)
	}
	return h
}

// BenchmarkTrimPass1000 is the trimming work before one call on a
// 1,000-message history that is over its budget: the first pass (as on
// `continue`) truncates and drops, and builds the request's view.
func BenchmarkTrimPass1000(b *testing.B) {
	h := history1000()
	b.ReportAllocs()
	for b.Loop() {
		tr := newTrimmer(32000, 500)
		tr.proactive(h)
		if len(tr.view(h)) == 0 {
			b.Fatal("empty view")
		}
	}
}

// BenchmarkTrimSteady1000 is the per-call cost once trimmed: the history
// gained one step, the pass trims a little more and builds the view. Every
// 50 steps the history and the trimmer start again (untimed), so the figure
// stays that of a 1,000-message history instead of growing with b.N.
func BenchmarkTrimSteady1000(b *testing.B) {
	body := strings.Repeat("result line with some words in it\n", 30)
	var h *History
	var tr *trimmer
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%50 == 0 {
			b.StopTimer()
			h, tr = history1000(), newTrimmer(32000, 500)
			tr.proactive(h)
			b.StartTimer()
		}
		h.Append(toolStep(fmt.Sprint("n", i), 1, body)...)
		i++
		tr.proactive(h)
		if len(tr.view(h)) == 0 {
			b.Fatal("empty view")
		}
	}
}

// acceptingTracer traces to a collector that answers 200 to everything,
// under a run span like the CLI's.
func acceptingTracer(b *testing.B) *telemetry.Tracer {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	b.Cleanup(srv.Close)
	tr, _ := telemetry.Setup(telemetry.Options{LookupEnv: func(k string) (string, bool) {
		if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
			return srv.URL, true
		}
		return "", false
	}})
	if tr == nil {
		b.Fatal("tracing is off")
	}
	b.Cleanup(func() { tr.Shutdown(context.Background()) })
	return tr
}

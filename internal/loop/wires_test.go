package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/llm"
)

// The loop's behaviour through the real client against the fake server, on
// each wire, streamed and not: both wires give the loop the same thing.
var wires = []struct {
	name   string
	wire   string
	stream bool
}{
	{"chat", llm.WireChat, true},
	{"chat-plain", llm.WireChat, false},
	{"responses", llm.WireResponses, true},
	{"responses-plain", llm.WireResponses, false},
}

// wireClient is a client of srv on wire.
func wireClient(srv *fakellm.Server, wire string, stream bool) *llm.Client {
	return llm.New(llm.Options{
		BaseURL: srv.URL(), APIKey: "k", KeySource: "ODEK_API_KEY", Stream: stream, WireAPI: wire, MaxAttempts: 2,
		PromptCacheKey: "run-1", Timeouts: llm.Timeouts{FirstByte: 2 * time.Second},
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
}

func bigCall(n int) fakellm.Turn {
	return fakellm.Turn{Reasoning: fmt.Sprintf("step %d: read more", n), Content: fmt.Sprintf("Reading part %d.", n),
		ToolCalls: []fakellm.ScriptCall{{Name: "big", Arguments: json.RawMessage(fmt.Sprintf(`{"part":%d}`, n))}}}
}

func TestLoopOnBothWires(t *testing.T) {
	t.Parallel()
	answerTurn := fakellm.Turn{Content: "All done.", Usage: &fakellm.ScriptUsage{PromptTokens: 900, CompletionTokens: 20, CachedTokens: 800}}
	manyCalls := func(n int) []fakellm.Turn {
		var out []fakellm.Turn
		for i := range n {
			out = append(out, bigCall(i))
		}
		return append(out, answerTurn)
	}
	excerpts := func(n int) []fakellm.Turn {
		var out []fakellm.Turn
		for i := range n {
			out = append(out, fakellm.Turn{Match: "--- excerpt ---", Content: fmt.Sprintf("digest %d", i)})
		}
		return out
	}
	type outcome struct {
		res  *Result
		evs  []events.Event
		err  error
		reqs []fakellm.RecordedRequest
		wire string
	}
	cases := []struct {
		name   string
		script fakellm.Script
		opts   Options
		check  func(t *testing.T, o outcome)
	}{
		{"tool call then answer", fakellm.Script{Turns: []fakellm.Turn{bigCall(1), answerTurn}}, Options{},
			func(t *testing.T, o outcome) {
				if o.err != nil || o.res.Answer != "All done." || o.res.Iterations != 2 {
					t.Fatalf("res %+v err %v", o.res, o.err)
				}
				last := o.reqs[1].Messages
				if m := last[len(last)-1]; m.Role != "tool" || !strings.Contains(m.Content, "zzz") {
					t.Errorf("last message %+v", m)
				}
				if o.res.Usage.CacheReadTokens != 800 || o.res.Usage.InputTokens < 100 {
					t.Errorf("usage %+v", o.res.Usage)
				}
			}},
		{"reasoning goes back", fakellm.Script{Turns: []fakellm.Turn{bigCall(1), answerTurn}}, Options{},
			func(t *testing.T, o outcome) {
				m := o.reqs[1].Messages[2]
				if m.Role != "assistant" || len(m.ToolCalls) != 1 {
					t.Fatalf("assistant turn %+v", m)
				}
				if o.wire == llm.WireResponses {
					if len(m.ReasoningItems) != 1 || !strings.Contains(string(m.ReasoningItems[0]), `"encrypted_content":"step 1: read more"`) {
						t.Errorf("reasoning items %q", m.ReasoningItems)
					}
				} else if m.ReasoningContent != "step 1: read more" {
					t.Errorf("reasoning_content %q", m.ReasoningContent)
				}
			}},
		{"length cut is partial", fakellm.Script{Turns: []fakellm.Turn{{Content: "The answer begins", FinishReason: "length"}}}, Options{},
			func(t *testing.T, o outcome) {
				if o.err != nil || o.res.Stop != StopMaxTokens || !o.res.Partial {
					t.Fatalf("res %+v err %v", o.res, o.err)
				}
			}},
		{"content filter fails", fakellm.Script{Turns: []fakellm.Turn{{FinishReason: "content_filter"}}}, Options{},
			func(t *testing.T, o outcome) {
				if last := lastEvent(t, o.evs); o.err == nil || last.Type != events.RunFailed || last.Data["error_class"] != "provider_error" {
					t.Fatalf("err %v, last %+v", o.err, last)
				}
			}},
		{"empty answer asked again", fakellm.Script{Turns: []fakellm.Turn{{Content: ""}, {Content: "ok"}}}, Options{},
			func(t *testing.T, o outcome) {
				if o.err != nil || o.res.Answer != "ok" || len(o.reqs) != 2 {
					t.Fatalf("res %+v err %v", o.res, o.err)
				}
			}},
		{"trimming drops whole groups", fakellm.Script{Turns: manyCalls(12)}, Options{ContextWindow: 6000},
			func(t *testing.T, o outcome) {
				if o.err != nil || o.res.Answer != "All done." {
					t.Fatalf("res %+v err %v", o.res, o.err)
				}
				if len(eventsOf(o.evs, events.ContextTrimmed)) == 0 {
					t.Error("nothing was trimmed")
				}
			}},
		{"compaction", fakellm.Script{AnyOrder: true, Turns: append(excerpts(12), manyCalls(12)...)}, Options{ContextWindow: 6000, Compaction: true},
			func(t *testing.T, o outcome) {
				if o.err != nil || o.res.Answer != "All done." {
					t.Fatalf("res %+v err %v", o.res, o.err)
				}
				if len(eventsOf(o.evs, events.SideCallUsage)) == 0 {
					t.Error("no compaction side call")
				}
			}},
		{"iteration cap summary", fakellm.Script{Turns: []fakellm.Turn{bigCall(1), bigCall(2), {Content: "Summary: part of it."}}}, Options{MaxIterations: 2},
			func(t *testing.T, o outcome) {
				if o.err != nil || o.res.Stop != StopMaxIterations || !strings.Contains(o.res.Answer, "Summary") {
					t.Fatalf("res %+v err %v", o.res, o.err)
				}
			}},
		{"response format", fakellm.Script{Turns: []fakellm.Turn{{Content: `{"n":1}`}}},
			Options{ResponseFormat: &llm.ResponseFormat{Name: "out", Schema: json.RawMessage(`{"type":"object"}`)}},
			func(t *testing.T, o outcome) {
				want := `"response_format":{"type":"json_schema"`
				if o.wire == llm.WireResponses {
					want = `"text":{"format":{"type":"json_schema","name":"out"`
				}
				if o.err != nil || !strings.Contains(string(o.reqs[0].Body), want) {
					t.Fatalf("err %v, body %s", o.err, o.reqs[0].Body)
				}
			}},
	}
	for _, tc := range cases {
		for _, w := range wires {
			t.Run(tc.name+"/"+w.name, func(t *testing.T) {
				t.Parallel()
				script := tc.script
				srv, err := fakellm.Start(&script, "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				o := tc.opts
				o.Model, o.ModelName, o.System = wireClient(srv, w.wire, w.stream), "m", "You are a test."
				o.Tools = mustRegistry(t, bigTool(8000))
				res, evs, err := runWithEvents(t, o, "the task")
				reqs := srv.Requests()
				for _, r := range reqs {
					if r.Wire != w.wire {
						t.Fatalf("a request went to %s", r.Path)
					}
				}
				tc.check(t, outcome{res: res, evs: evs, err: err, reqs: reqs, wire: w.wire})
			})
		}
	}
}

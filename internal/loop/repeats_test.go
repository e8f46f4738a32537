package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/untrusted"
)

// approveAll is a Gate that lets every call through, as auto-approval
// does: it must reset nothing.
type approveAll struct{ n int }

func (g *approveAll) Check(context.Context, GateCall) error { g.n++; return nil }

// repeating calls tool with the args of each turn in turn, n times, then
// (for the summary or an answer) says "summary".
func repeating(tool string, n int, args ...string) *scriptedModel {
	var ts []func(llm.Request) (*llm.Response, error)
	for k := range n {
		ts = append(ts, callTools(10, 2, tc(fmt.Sprint("c", k), tool, args[k%len(args)])))
	}
	return turns(append(ts, answer("summary", 10, 2))...)
}

// systemHints are the loop breaker's messages in a history.
func systemHints(h []llm.Message) []string {
	var out []string
	for _, m := range h {
		if m.Role == llm.RoleSystem && strings.HasPrefix(m.Content, "[Loop breaker]") {
			out = append(out, m.Content)
		}
	}
	return out
}

// A model that repeats one successful call (its arguments spelt differently
// each time) is told once at three and stopped at ten, with a summary, even
// though every call was approved.
func TestLoopBreakerStopsARepeatedCall(t *testing.T) {
	wrapped := funcTool{"status", func(context.Context, json.RawMessage) (string, error) {
		return untrusted.Wrap("status", "pending"), nil // a fresh nonce each time, the same result
	}}
	gate := &approveAll{}
	m := repeating("status", 10, `{"job":"build","verbose":true}`, `{ "verbose": true, "job": "build" }`)
	res, evs, err := runWithEvents(t, Options{Model: m, Tools: mustRegistry(t, wrapped), Gate: gate}, "wait for the build")
	var le *LoopError
	if !errors.As(err, &le) || le.Kind != "repeat" || le.Count != 10 || le.Limit != 10 || le.Tool != "status" || le.CallID != "c9" {
		t.Fatalf("err %v (%+v)", err, le)
	}
	if events.ErrorClass(err) != errclass.LoopDetected {
		t.Errorf("class %q", events.ErrorClass(err))
	}
	if gate.n != 10 || res.ToolCalls.OK != 10 || len(m.reqs) != 11 {
		t.Errorf("%d approvals, %d calls ran, %d model calls; want 10, 10, 11 (the summary)", gate.n, res.ToolCalls.OK, len(m.reqs))
	}
	if !strings.HasPrefix(res.Answer, LoopMarker+"\n\nsummary") {
		t.Errorf("answer %q", res.Answer)
	}
	hints := systemHints(res.History)
	if len(hints) != 1 || !strings.Contains(hints[0], "called status 3 times with the same arguments and got the same result") ||
		!strings.Contains(hints[0], "stopped if this goes on to 10") {
		t.Errorf("hints %q", hints)
	}
	// The hint follows the third batch's tool message.
	for k, msg := range res.History {
		if len(hints) == 1 && msg.Content == hints[0] && (k == 0 || res.History[k-1].Role != llm.RoleTool || res.History[k-1].ToolCallID != "c2") {
			t.Errorf("the hint is message %d, after %+v", k, res.History[k-1])
		}
	}
	if h := eventsOf(evs, events.LoopHint); len(h) != 1 || h[0].Tool != "status" || h[0].Data["kind"] != "repeat" || h[0].Data["count"] != 3 {
		t.Errorf("loop_hint %+v", h)
	}
	types := typesOf(evs)
	if n := len(types); n < 2 || types[n-2] != events.LoopDetected || types[n-1] != events.RunFailed {
		t.Fatalf("the run ends %v", types[max(0, n-3):])
	}
	ld := eventsOf(evs, events.LoopDetected)[0]
	if ld.Data["count"] != 10 || ld.Data["limit"] != 10 || ld.Data["kind"] != "repeat" || lastEvent(t, evs).Data["error_class"] != errclass.LoopDetected {
		t.Errorf("loop_detected %+v, run_failed %+v", ld.Data, lastEvent(t, evs).Data)
	}
}

// A tool that always fails, with other arguments each time, gets the hint
// for its kind of error, then stops the run.
func TestLoopBreakerStopsAToolThatKeepsFailing(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		kind string
		hint string
	}{
		{"tool error", errors.New("disk on fire"), "error", "failed 3 times in a row"},
		{"mcp", classed{errclass.MCPError}, "mcp_error", "The MCP server behind flaky failed 3 times in a row"},
		{"timeout", context.DeadlineExceeded, "timeout", "timed out 3 times in a row"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flaky := funcTool{"flaky", func(context.Context, json.RawMessage) (string, error) { return "", tc.err }}
			args := make([]string, 12)
			for k := range args {
				args[k] = fmt.Sprintf(`{"try":%d}`, k)
			}
			res, evs, err := runWithEvents(t, Options{Model: repeating("flaky", 12, args...), Tools: mustRegistry(t, flaky)}, "go")
			var le *LoopError
			if !errors.As(err, &le) || le.Kind != tc.kind || le.Count != 10 {
				t.Fatalf("err %v", err)
			}
			if want := "loop detected: flaky failed 10 times in a row (" + tc.kind; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("message %q", err)
			}
			if hints := systemHints(res.History); len(hints) != 1 || !strings.Contains(hints[0], tc.hint) {
				t.Errorf("hints %q", hints)
			}
			if h := eventsOf(evs, events.LoopHint); len(h) != 1 || h[0].Data["kind"] != tc.kind {
				t.Errorf("loop_hint %+v", h)
			}
		})
	}
}

type classed struct{ class string }

func (c classed) Error() string      { return "mcpclient fs: server closed the connection" }
func (c classed) ErrorClass() string { return c.class }

// What is not a loop goes on: an exempt polling tool, a result that
// changes, a success between failures, something new learned in between,
// a model that takes the hint.
func TestLoopBreakerLeavesWorkAlone(t *testing.T) {
	n := 0
	counter := funcTool{"poll", func(context.Context, json.RawMessage) (string, error) { n++; return fmt.Sprint("done ", n), nil }}
	same := funcTool{"same", func(context.Context, json.RawMessage) (string, error) { return "pending", nil }}
	fails := 0
	sometimes := funcTool{"sometimes", func(context.Context, json.RawMessage) (string, error) {
		if fails++; fails%3 == 0 {
			return "ok", nil
		}
		return "", errors.New("busy")
	}}
	edit := 0
	editor := funcTool{"edit", func(context.Context, json.RawMessage) (string, error) {
		edit++
		return fmt.Sprint("edited ", edit), nil
	}}
	reg := mustRegistry(t, counter, same, sometimes, editor)
	for _, tc := range []struct {
		name  string
		model *scriptedModel
		o     Options
	}{
		{"exempt polling tool", repeating("same", 15, `{}`), Options{Loops: LoopLimits{Exempt: []string{"same"}}}},
		{"a result that changes", repeating("poll", 15, `{}`), Options{}},
		{"a success between failures", repeating("sometimes", 15, `{"n":1}`, `{"n":2}`), Options{}},
		{"something new between repeats", alternating(15), Options{}},
		{"the breaker off", repeating("same", 15, `{}`), Options{Loops: LoopLimits{HintAfter: -1, StopAfter: -1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Model, o.Tools = tc.model, reg
			res, err := Run(context.Background(), o, "go")
			if err != nil || res.Answer != "summary" {
				t.Fatalf("err %v, answer %q", err, res.Answer)
			}
			if hints := systemHints(res.History); len(hints) > 0 && tc.name != "a success between failures" {
				t.Errorf("hints %q", hints)
			}
		})
	}
}

// alternating edits (a new result each time) and checks (the same result):
// an edit-test cycle, not a loop.
func alternating(n int) *scriptedModel {
	var ts []func(llm.Request) (*llm.Response, error)
	for k := range n {
		ts = append(ts, callTools(10, 2, tc(fmt.Sprint("e", k), "edit", `{}`), tc(fmt.Sprint("s", k), "same", `{}`)))
	}
	return turns(append(ts, answer("summary", 10, 2))...)
}

func TestLoopHintsByKind(t *testing.T) {
	p := newRepeats(LoopLimits{})
	for kind, want := range map[string]string{
		loopUnknownTool:  `There is no tool named "x"`,
		loopBadArguments: "rejected its arguments 3 times",
		loopDenied:       "refused x 3 times in a row",
		loopCut:          "cut off at the output-token limit 3 times",
		loopMCPError:     "The MCP server behind x failed 3 times",
	} {
		if got := p.hintText(finding{tool: "x", kind: kind, count: 3}); !strings.Contains(got, want) {
			t.Errorf("%s: %q", kind, got)
		}
	}
	for _, tc := range []struct {
		o    callOutcome
		want string
	}{
		{callOutcome{err: &UnknownToolError{Tool: "x"}}, loopUnknownTool},
		{callOutcome{err: &BadArgumentsError{Tool: "x"}}, loopBadArguments},
		{callOutcome{err: errors.New("no"), denied: true}, loopDenied},
		{callOutcome{err: &CutToolCallError{Tool: "x"}}, loopCut},
		{callOutcome{err: fmt.Errorf("call: %w", context.DeadlineExceeded)}, loopTimeout},
		{callOutcome{err: errors.New("boom")}, loopError},
	} {
		if got := failureKind(tc.o); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.o.err, got, tc.want)
		}
	}
}

func TestCanonicalArgs(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{`{"a":1,"b":[1,2]}`, ` { "b" : [1, 2], "a": 1 } `},
		{`{"n":1.50}`, `{"n": 1.5}`},
		{`not json`, ` not json `},
	} {
		if canonicalArgs(tc.a) != canonicalArgs(tc.b) {
			t.Errorf("%q and %q differ: %q, %q", tc.a, tc.b, canonicalArgs(tc.a), canonicalArgs(tc.b))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{`{"a":1}`, `{"a":1}}`},
		{`{"a":"x"}`, `{"a":"y"}`},
	} {
		if canonicalArgs(tc.a) == canonicalArgs(tc.b) {
			t.Errorf("%q and %q are one call", tc.a, tc.b)
		}
	}
}

// FuzzCanonicalArgs: the model's arguments never panic the breaker, and the
// canonical form of valid JSON is its own canonical form.
func FuzzCanonicalArgs(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,"x",null]`, `{"a":{"b":1e5}}`, `"\u00e9"`, `{`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := canonicalArgs(s)
		if json.Valid([]byte(s)) && canonicalArgs(c) != c {
			t.Fatalf("%q: %q is not stable (%q)", s, c, canonicalArgs(c))
		}
	})
}

func typesOf(evs []events.Event) []events.Type {
	out := make([]events.Type, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

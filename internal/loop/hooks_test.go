package loop

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/risk"
)

// fakeHooks answers each event with its function and records the inputs.
type fakeHooks struct {
	mu  sync.Mutex
	on  map[hooks.Event]func(hooks.Input) hooks.Result
	ins []hooks.Input
}

func (f *fakeHooks) Fire(_ context.Context, in hooks.Input) hooks.Result {
	f.mu.Lock()
	f.ins = append(f.ins, in)
	fn := f.on[in.Event]
	f.mu.Unlock()
	if fn == nil {
		return hooks.Result{}
	}
	return fn(in)
}

func (f *fakeHooks) fired() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for _, in := range f.ins {
		names = append(names, string(in.Event))
	}
	return strings.Join(names, ",")
}

func echoTool(ran *[]string, mu *sync.Mutex) assessedTool {
	return assessedTool{funcTool: funcTool{"shell", func(_ context.Context, args json.RawMessage) (string, error) {
		mu.Lock()
		*ran = append(*ran, string(args))
		mu.Unlock()
		return "ran " + string(args), nil
	}}, class: risk.Safe, summary: func(json.RawMessage) map[string]any { return nil }}
}

// A PreToolUse block keeps the call from running: the model sees the
// hook's reason, the call counts as denied, the event names the hook.
func TestHookPreToolUseBlocks(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	reg, _ := NewRegistry(echoTool(&ran, &mu))
	h := &fakeHooks{on: map[hooks.Event]func(hooks.Input) hooks.Result{
		hooks.PreToolUse: func(in hooks.Input) hooks.Result {
			if strings.Contains(string(in.Args), "rm") {
				return hooks.Result{Block: true, Reason: "no rm here"}
			}
			return hooks.Result{}
		},
	}}
	sink := &memSink{}
	em := events.NewEmitter(events.Options{RunID: "r", Sinks: []events.Sink{sink}})
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(10, 5, tc("a", "shell", `{"command":"rm -rf x"}`), tc("b", "shell", `{"command":"ls"}`)),
		answer("done", 10, 5),
	}}
	res, err := Run(context.Background(), Options{Model: m, Tools: reg, Hooks: h, Events: em, Gate: &recordingGate{}}, "task")
	if err != nil {
		t.Fatal(err)
	}
	_ = em.Close(context.Background())
	if len(ran) != 1 || ran[0] != `{"command":"ls"}` || res.ToolCalls.Denied != 1 || res.ToolCalls.OK != 1 {
		t.Fatalf("ran %q, counts %+v", ran, res.ToolCalls)
	}
	if got := toolMessage(t, m.reqs[1].Messages, "a"); !strings.Contains(got, "error: blocked by a PreToolUse hook: no rm here") {
		t.Errorf("the model saw %q", got)
	}
	for _, ev := range sink.evs {
		if ev.Type == events.ToolCallFailed && (ev.Data["risk_class"] != "hook" || ev.Data["error_class"] != "policy_denied") {
			t.Errorf("tool_call_failed = %v", ev.Data)
		}
	}
	if h.ins[2].Event != hooks.PreToolUse || h.ins[2].Pending == nil || len(h.ins[2].Pending.ToolCalls) != 2 {
		t.Errorf("PreToolUse input = %+v", h.ins[2])
	}
}

func toolMessage(t *testing.T, msgs []llm.Message, id string) string {
	t.Helper()
	for _, m := range msgs {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("no tool message %s", id)
	return ""
}

// updatedInput replaces the arguments before the risk is assessed and the
// Gate decides: a hook cannot slip a call past the policy; an ask reaches
// the Gate, and with no Gate (nobody to ask) it is a denial.
func TestHookUpdatedInputAndAsk(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	tool := echoTool(&ran, &mu)
	tool.class = risk.Safe
	reg, _ := NewRegistry(assessedTool{funcTool: tool.funcTool, summary: tool.summary, class: risk.Safe})
	gate := &recordingGate{}
	h := &fakeHooks{on: map[hooks.Event]func(hooks.Input) hooks.Result{
		hooks.PreToolUse: func(in hooks.Input) hooks.Result {
			switch {
			case strings.Contains(string(in.Args), "ask"):
				return hooks.Result{Ask: true, Reason: "a person must look"}
			default:
				return hooks.Result{UpdatedInput: json.RawMessage(`{"command":"ls -la"}`), Context: "rewrote ls"}
			}
		},
	}}
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(10, 5, tc("a", "shell", `{"command":"ls"}`), tc("b", "shell", `{"command":"ask"}`)),
		answer("done", 10, 5),
	}}
	if _, err := Run(context.Background(), Options{Model: m, Tools: reg, Hooks: h, Gate: gate}, "task"); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 2 || !slices.Contains(ran, `{"command":"ls -la"}`) {
		t.Fatalf("ran %q", ran)
	}
	byArgs := map[string]GateCall{}
	for _, c := range gate.calls {
		byArgs[string(c.Args)] = c
	}
	if c, ok := byArgs[`{"command":"ls -la"}`]; !ok || c.Risk.What != `shell {"command":"ls -la"}` {
		t.Errorf("the gate did not decide on the new arguments: %+v", gate.calls)
	}
	if byArgs[`{"command":"ask"}`].HookAsk != "a person must look" {
		t.Errorf("the ask did not reach the gate: %+v", gate.calls)
	}
	if got := toolMessage(t, m.reqs[1].Messages, "a"); !strings.HasSuffix(got, "\n[PreToolUse hook] rewrote ls") {
		t.Errorf("tool message %q", got)
	}
	// No gate: nobody can answer the ask.
	ran = nil
	m = &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(10, 5, tc("b", "shell", `{"command":"ask"}`)), answer("done", 10, 5)}}
	res, err := Run(context.Background(), Options{Model: m, Tools: reg, Hooks: h}, "task")
	if err != nil || len(ran) != 0 || res.ToolCalls.Denied != 1 {
		t.Fatalf("ask without a gate: err %v, ran %q, %+v", err, ran, res.ToolCalls)
	}
}

// A Stop hook that blocks keeps the agent going, its reason as the next
// user message, until it accepts or MaxStopContinuations runs out; each
// continuation is one more model call, counted like any other.
func TestHookStopContinues(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cap       int
		accept    int // the answer the hook accepts (1-based)
		answers   int
		stop      Stop
		conts     int
		lastInput bool
	}{
		{"accepted on the third answer", 3, 3, 3, StopCompleted, 2, true},
		{"the cap ends it", 1, 99, 2, StopHookCap, 1, true},
		{"zero: never", 0, 99, 1, StopHookCap, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			h := &fakeHooks{on: map[hooks.Event]func(hooks.Input) hooks.Result{
				hooks.Stop: func(in hooks.Input) hooks.Result {
					n++
					if n >= tc.accept {
						return hooks.Result{}
					}
					return hooks.Result{Block: true, Reason: "FAIL: TestAdd"}
				},
			}}
			var turns []func(llm.Request) (*llm.Response, error)
			for i := range 4 {
				turns = append(turns, answer("answer "+string(rune('1'+i)), 10, 5))
			}
			m := &scriptedModel{turns: turns}
			res, err := Run(context.Background(), Options{Model: m, Hooks: h, MaxStopContinuations: tc.cap}, "task")
			if err != nil {
				t.Fatal(err)
			}
			if len(m.reqs) != tc.answers || res.Stop != tc.stop || res.StopContinuations != tc.conts || res.Partial != (tc.stop != StopCompleted) {
				t.Fatalf("%d calls, stop %v, continuations %d, partial %v", len(m.reqs), res.Stop, res.StopContinuations, res.Partial)
			}
			if res.Answer != "answer "+string(rune('0'+tc.answers)) || res.Usage.OutputTokens != int64(5*tc.answers) {
				t.Errorf("answer %q, usage %+v", res.Answer, res.Usage)
			}
			if tc.answers > 1 {
				last := m.reqs[1].Messages[len(m.reqs[1].Messages)-1]
				if last.Role != llm.RoleUser || !strings.Contains(last.Content, "FAIL: TestAdd") {
					t.Errorf("the model was told %+v", last)
				}
			}
			var stopIns []hooks.Input
			for _, in := range h.ins {
				if in.Event == hooks.Stop {
					stopIns = append(stopIns, in)
				}
			}
			if stopIns[0].StopActive || stopIns[len(stopIns)-1].StopActive != tc.lastInput || stopIns[0].LastMessage != "answer 1" {
				t.Errorf("stop inputs %+v", stopIns)
			}
		})
	}
}

// SessionStart and UserPromptSubmit run before the first model call: their
// context follows the task; a refusal fails the run before any call.
func TestHookSessionAndPrompt(t *testing.T) {
	h := &fakeHooks{on: map[hooks.Event]func(hooks.Input) hooks.Result{
		hooks.SessionStart:     func(hooks.Input) hooks.Result { return hooks.Result{Context: "tests live in ./t"} },
		hooks.UserPromptSubmit: func(in hooks.Input) hooks.Result { return hooks.Result{Context: "ticket for: " + in.Prompt} },
	}}
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){answer("ok", 1, 1)}}
	if _, err := Run(context.Background(), Options{Model: m, Hooks: h, System: "sys", ModelName: "m1"}, "fix it"); err != nil {
		t.Fatal(err)
	}
	msgs := m.reqs[0].Messages
	if len(msgs) != 4 || msgs[1].Content != "fix it" || !strings.Contains(msgs[2].Content, "tests live in ./t") ||
		!strings.Contains(msgs[3].Content, "ticket for: fix it") {
		t.Fatalf("first request %+v", msgs)
	}
	if h.fired() != "SessionStart,UserPromptSubmit,Stop,SessionEnd" || h.ins[0].Source != "startup" || h.ins[0].Model != "m1" ||
		h.ins[3].Reason != "completed" {
		t.Errorf("fired %s: %+v", h.fired(), h.ins)
	}
	h = &fakeHooks{on: map[hooks.Event]func(hooks.Input) hooks.Result{
		hooks.UserPromptSubmit: func(hooks.Input) hooks.Result { return hooks.Result{Block: true, Reason: "no secrets in tasks"} },
	}}
	m = &scriptedModel{}
	_, err := Run(context.Background(), Options{Model: m, Hooks: h}, "print the secret")
	var stopped *hooks.StoppedError
	if !errors.As(err, &stopped) || stopped.Reason != "no secrets in tasks" || len(m.reqs) != 0 {
		t.Fatalf("err %v, %d calls", err, len(m.reqs))
	}
	if events.ErrorClass(err) != "policy_denied" || h.fired() != "SessionStart,UserPromptSubmit,SessionEnd" {
		t.Errorf("class %s, fired %s", events.ErrorClass(err), h.fired())
	}
}

// PostToolUse, PostToolUseFailure and PermissionDenied fire after the call
// as it went; what they say follows the result; "continue": false ends the
// run before the next model call; a project hook's words taint the run.
func TestHookAfterCalls(t *testing.T) {
	fail := funcTool{"fail", func(context.Context, json.RawMessage) (string, error) { return "", errors.New("disk full") }}
	var mu sync.Mutex
	var ran []string
	risky := assessedTool{funcTool: funcTool{"risky", func(context.Context, json.RawMessage) (string, error) { return "", nil }},
		class: risk.Destructive, summary: func(json.RawMessage) map[string]any { return nil }}
	reg, _ := NewRegistry(echoTool(&ran, &mu), fail, risky)
	h := &fakeHooks{on: map[hooks.Event]func(hooks.Input) hooks.Result{
		hooks.PostToolUse: func(in hooks.Input) hooks.Result {
			return hooks.Result{Block: true, Reason: "lint failed on " + in.Response, Untrusted: true}
		},
		hooks.PostToolUseFailure: func(in hooks.Input) hooks.Result { return hooks.Result{Context: "saw " + in.Error} },
		hooks.PermissionDenied: func(in hooks.Input) hooks.Result {
			return hooks.Result{Stop: true, StopReason: "a denial ends runs here"}
		},
	}}
	tainted := false
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(1, 1, tc("a", "shell", `{"x":1}`), tc("b", "fail", `{}`), tc("c", "risky", `{}`)),
		answer("never", 1, 1),
	}}
	res, err := Run(context.Background(), Options{Model: m, Tools: reg, Hooks: h, Gate: &recordingGate{}, MaxToolParallel: 1,
		OnUntrusted: func() { tainted = true }}, "t")
	var stopped *hooks.StoppedError
	if !errors.As(err, &stopped) || stopped.Event != hooks.PermissionDenied || len(m.reqs) != 1 {
		t.Fatalf("err %v after %d calls", err, len(m.reqs))
	}
	if !tainted {
		t.Error("a project hook's reason reached the model and the run is not tainted")
	}
	if a := toolMessage(t, res.History, "a"); !strings.HasSuffix(a, "\n[PostToolUse hook] lint failed on ran {\"x\":1}") {
		t.Errorf("tool message a = %q", a)
	}
	if b := toolMessage(t, res.History, "b"); !strings.HasSuffix(b, "\n[PostToolUseFailure hook] saw disk full") {
		t.Errorf("tool message b = %q", b)
	}
	fired := h.fired()
	for _, want := range []string{"PostToolUse", "PostToolUseFailure", "PermissionDenied", "SessionEnd"} {
		if !strings.Contains(fired, want) {
			t.Errorf("%s did not fire: %s", want, fired)
		}
	}
	if strings.Contains(fired, "StopFailure") {
		t.Errorf("a hook's own stop fired StopFailure: %s", fired)
	}
}

// PreCompact fires before a digest; a hook that blocks it leaves the
// dropped turns without one (no side call).
func TestHookPreCompact(t *testing.T) {
	h := &fakeHooks{on: map[hooks.Event]func(hooks.Input) hooks.Result{
		hooks.PreCompact: func(in hooks.Input) hooks.Result { return hooks.Result{Block: in.Trigger == "auto"} },
	}}
	r := newRunner(Options{Hooks: h, Compaction: true})
	r.hist = NewHistory()
	if r.preCompact(context.Background(), 1) {
		t.Fatal("a blocked PreCompact let the digest run")
	}
	if (&runner{}).preCompact(context.Background(), 1) != true {
		t.Fatal("no hooks blocked the digest")
	}
}

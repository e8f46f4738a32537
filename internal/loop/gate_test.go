package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/risk"
)

// assessedTool classifies its calls and summarises its own arguments.
type assessedTool struct {
	funcTool
	class   risk.Class
	err     error
	summary func(json.RawMessage) map[string]any
}

func (t assessedTool) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	return risk.Assessment{Class: t.class, Set: risk.Of(t.class), What: t.name + " " + string(args)}, t.err
}

func (t assessedTool) ArgsSummary(args json.RawMessage) map[string]any { return t.summary(args) }

type denial struct{ what string }

func (d denial) Error() string { return "operation denied by configuration: " + d.what }
func (d denial) Denied() bool  { return true }

// recordingGate denies every class above LocalWrite and records what it saw.
type recordingGate struct {
	mu    sync.Mutex
	calls []GateCall
}

func (g *recordingGate) Check(ctx context.Context, c GateCall) error {
	g.mu.Lock()
	g.calls = append(g.calls, c)
	g.mu.Unlock()
	if c.Assessed && c.Risk.Class > risk.LocalWrite {
		return denial{c.Risk.What}
	}
	return nil
}

// The gate sees every call with its assessment; a denied call never runs,
// reaches the model as an error and is counted as denied, not failed; an
// approved call finds its assessment on ctx.
func TestGateDecidesBeforeCalls(t *testing.T) {
	var ran sync.Map
	mk := func(name string, class risk.Class) assessedTool {
		return assessedTool{funcTool: funcTool{name, func(ctx context.Context, _ json.RawMessage) (string, error) {
			a, ok := risk.Approved(ctx)
			ran.Store(name, ok && a.Class == class)
			return name + " ran", nil
		}}, class: class, summary: func(json.RawMessage) map[string]any { return map[string]any{"class": class.String()} }}
	}
	plain := funcTool{"mcp__tool", func(context.Context, json.RawMessage) (string, error) { return "plain ran", nil }}
	bad := assessedTool{funcTool: funcTool{"bad", func(context.Context, json.RawMessage) (string, error) {
		t.Error("a call whose assessment failed ran")
		return "", nil
	}}, err: errors.New("path is required")}
	g := &recordingGate{}
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(1, 1, tc("a", "reader", `{"p":1}`), tc("b", "curl", `{}`), tc("c", "mcp__tool", `{"k":1}`), tc("d", "bad", `{}`)),
		answer("done", 1, 1),
	}}
	reg := mustRegistry(t, mk("reader", risk.Safe), mk("curl", risk.NetworkEgress), plain, bad)
	res, err := Run(context.Background(), Options{Model: m, Tools: reg, Gate: g}, "go")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ToolCalls; got != (ToolCounts{OK: 2, Failed: 1, Denied: 1}) {
		t.Errorf("tool counts = %+v, want 2 ok, 1 failed, 1 denied", got)
	}
	if v, _ := ran.Load("reader"); v != true {
		t.Errorf("reader ran with its approved assessment on ctx: %v", v)
	}
	if _, ok := ran.Load("curl"); ok {
		t.Error("the denied call ran")
	}
	tool := func(id string) string {
		for _, msg := range res.History {
			if msg.ToolCallID == id {
				return msg.Content
			}
		}
		return ""
	}
	if c := tool("b"); !strings.Contains(c, "error: operation denied by configuration: curl {}") {
		t.Errorf("denied call's result = %q", c)
	}
	if c := tool("d"); !strings.Contains(c, "error: path is required") {
		t.Errorf("bad call's result = %q", c)
	}
	if len(g.calls) != 3 {
		t.Fatalf("gate saw %d calls, want 3 (not the one whose assessment failed)", len(g.calls))
	}
	for _, c := range g.calls {
		if c.Tool == "mcp__tool" && (c.Assessed || string(c.Args) != `{"k":1}`) {
			t.Errorf("unassessed call reached the gate as %+v", c)
		}
	}
}

// A tool's own args_summary is used; a panicking one is dropped; tools with
// none get their argument keys.
func TestArgsSummaryFromTool(t *testing.T) {
	own := assessedTool{funcTool: funcTool{"own", func(context.Context, json.RawMessage) (string, error) { return "", nil }},
		summary: func(json.RawMessage) map[string]any { return map[string]any{"argv0": "ls", "class": "safe"} }}
	boom := assessedTool{funcTool: funcTool{"boom", func(context.Context, json.RawMessage) (string, error) { return "", nil }},
		summary: func(json.RawMessage) map[string]any { panic("boom") }}
	plain := funcTool{"srv__t", func(context.Context, json.RawMessage) (string, error) { return "", nil }}
	sink := &memSink{}
	em := events.NewEmitter(events.Options{RunID: "r", Sinks: []events.Sink{sink}})
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(1, 1, tc("a", "own", `{"command":"ls"}`), tc("b", "boom", `{}`), tc("c", "srv__t", `{"z":1,"a":2}`)),
		answer("done", 1, 1),
	}}
	if _, err := Run(context.Background(), Options{Model: m, Tools: mustRegistry(t, own, boom, plain), Events: em}, "go"); err != nil {
		t.Fatal(err)
	}
	_ = em.Close(context.Background())
	got := map[string]any{}
	for _, ev := range sink.evs {
		if ev.Type == events.ToolCallStarted {
			got[ev.Tool] = ev.Data["args_summary"]
		}
	}
	want := map[string]any{
		"own":    map[string]any{"argv0": "ls", "class": "safe"},
		"boom":   nil,
		"srv__t": map[string]any{"keys": []string{"a", "z"}},
	}
	for k, w := range want {
		g, _ := json.Marshal(got[k])
		wj, _ := json.Marshal(w)
		if string(g) != string(wj) {
			t.Errorf("%s args_summary = %s, want %s", k, g, wj)
		}
	}
}

// detailedDenial is a refusal that names its risk class and reason.
type detailedDenial struct{ denial }

func (detailedDenial) RiskClass() string { return "network_egress" }
func (detailedDenial) Reason() string    { return "no terminal to ask" }

type denyAllGate struct{ err error }

func (g denyAllGate) Check(context.Context, GateCall) error { return g.err }

// A denied call is tool_call_failed with error_class policy_denied, never
// tool_error, and carries the refusal's risk class and reason when it has
// them.
func TestDenialEventClass(t *testing.T) {
	for _, c := range []struct {
		name      string
		err       error
		risk, why any
	}{
		{"detailed", detailedDenial{denial{"curl"}}, "network_egress", "no terminal to ask"},
		{"bare", denial{"curl"}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			curl := funcTool{"curl", func(context.Context, json.RawMessage) (string, error) { return "ran", nil }}
			m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
				callTools(1, 1, tc("a", "curl", `{}`)), answer("done", 1, 1),
			}}
			_, evs, err := runWithEvents(t, Options{Model: m, Tools: mustRegistry(t, curl), Gate: denyAllGate{c.err}}, "go")
			if err != nil {
				t.Fatal(err)
			}
			var got []map[string]any
			for _, e := range evs {
				if e.Type == events.ToolCallFailed {
					got = append(got, e.Data)
				}
			}
			if len(got) != 1 || got[0]["error_class"] != "policy_denied" || got[0]["risk_class"] != c.risk || got[0]["reason"] != c.why {
				t.Errorf("tool_call_failed data = %v", got)
			}
		})
	}
}

// OnReply hears every reply, in order, the calls' ids already made unique
// for the run, before the calls run.
func TestOnReply(t *testing.T) {
	var got []string
	ran := false
	echo := funcTool{"echo", func(context.Context, json.RawMessage) (string, error) { ran = true; return "ok", nil }}
	m := &scriptedModel{turns: []func(llm.Request) (*llm.Response, error){
		callTools(1, 1, tc("x", "echo", `{}`)), callTools(1, 1, tc("x", "echo", `{}`)), answer("done", 1, 1),
	}}
	o := Options{Model: m, Tools: mustRegistry(t, echo), OnReply: func(i int, r llm.Message) {
		s := fmt.Sprintf("%d:%s", i, r.Content)
		for _, c := range r.ToolCalls {
			s += "," + c.ID
		}
		if len(got) == 1 && !ran {
			t.Error("the second reply was heard before the first batch ran")
		}
		got = append(got, s)
	}}
	if _, err := Run(context.Background(), o, "go"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2] != "3:done" || got[0] == got[1] || !strings.HasPrefix(got[0], "1:,x") {
		t.Errorf("replies heard = %q", got)
	}
}

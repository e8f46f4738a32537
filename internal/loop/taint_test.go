package loop

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/odek-run/odek/internal/llm"
)

// ownTool is a trusted-output tool (like the plan tool).
type ownTool struct{ funcTool }

func (ownTool) TrustedOutput() bool { return true }

// saysFalse has the method but answers false: the interface alone is no promise.
type saysFalse struct{ funcTool }

func (saysFalse) TrustedOutput() bool { return false }

func okTool(name string) funcTool {
	return funcTool{name, func(context.Context, json.RawMessage) (string, error) { return name + " output", nil }}
}

// taintProbe records, per model call, whether the run had reported the taint
// by the time the model was asked (what a delegate_tasks call in that
// response would see).
type taintProbe struct {
	calls   int
	tainted bool
	seen    []bool
}

func (p *taintProbe) options(t *testing.T, m *scriptedModel, tools ...Tool) Options {
	return Options{Model: m, Tools: mustRegistry(t, tools...), OnUntrusted: func() { p.calls++; p.tainted = true }}
}

// observe wraps a turn so it records the taint at the time of the request.
func (p *taintProbe) observe(turn func(llm.Request) (*llm.Response, error)) func(llm.Request) (*llm.Response, error) {
	return func(req llm.Request) (*llm.Response, error) {
		p.seen = append(p.seen, p.tainted)
		return turn(req)
	}
}

func TestTaintByUntrustedResult(t *testing.T) {
	cases := map[string]Tool{
		"plain tool":   okTool("read"),
		"says false":   saysFalse{okTool("read")},
		"error result": funcTool{"read", func(context.Context, json.RawMessage) (string, error) { return "", errors.New("server said: obey me") }},
	}
	for name, tool := range cases {
		t.Run(name, func(t *testing.T) {
			p := &taintProbe{}
			m := &scriptedModel{}
			m.turns = []func(llm.Request) (*llm.Response, error){
				p.observe(callTools(1, 1, tc("a", "read", `{}`))),
				p.observe(callTools(1, 1, tc("b", "read", `{}`))),
				p.observe(answer("done", 1, 1)),
			}
			if _, err := Run(context.Background(), p.options(t, m, tool), "go"); err != nil {
				t.Fatal(err)
			}
			if want := []bool{false, true, true}; !slices.Equal(p.seen, want) {
				t.Fatalf("tainted at each model call = %v, want %v", p.seen, want)
			}
			if p.calls != 1 {
				t.Fatalf("OnUntrusted called %d times, want once", p.calls)
			}
		})
	}
}

func TestNoTaintFromTrustedOutputTool(t *testing.T) {
	p := &taintProbe{}
	m := &scriptedModel{}
	m.turns = []func(llm.Request) (*llm.Response, error){
		p.observe(callTools(1, 1, tc("a", "plan", `{}`), tc("b", "plan", `{}`))),
		p.observe(callTools(1, 1, tc("c", "missing", `{}`))), // not in the registry: untrusted
		p.observe(answer("done", 1, 1)),
	}
	if _, err := Run(context.Background(), p.options(t, m, ownTool{okTool("plan")}), "go"); err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, false, true}; !slices.Equal(p.seen, want) {
		t.Fatalf("tainted at each model call = %v, want %v", p.seen, want)
	}
}

// A call made in the same response as the untrusted read was decided before
// the model saw the read's result: the taint is not there yet while the
// batch runs, and is there for the next response.
func TestSameBatchCallIsNotTainted(t *testing.T) {
	p := &taintProbe{}
	var duringBatch []bool
	spy := funcTool{"delegate", func(context.Context, json.RawMessage) (string, error) {
		duringBatch = append(duringBatch, p.tainted)
		return "delegated", nil
	}}
	m := &scriptedModel{}
	m.turns = []func(llm.Request) (*llm.Response, error){
		callTools(1, 1, tc("a", "read", `{}`), tc("b", "delegate", `{}`)),
		callTools(1, 1, tc("c", "delegate", `{}`)),
		answer("done", 1, 1),
	}
	opts := p.options(t, m, okTool("read"), ownTool{spy})
	opts.MaxToolParallel = 1 // read runs (and returns) before delegate starts
	if _, err := Run(context.Background(), opts, "go"); err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true}; !slices.Equal(duringBatch, want) {
		t.Fatalf("tainted during each delegate call = %v, want %v", duringBatch, want)
	}
}

func TestTaintFromRestoredHistory(t *testing.T) {
	restored := func(toolName string) *History {
		return Regroup([]llm.Message{
			{Role: llm.RoleUser, Content: "first turn"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{tc("a", toolName, `{}`)}},
			{Role: llm.RoleTool, ToolCallID: "a", Name: toolName, Content: "a result"},
			{Role: llm.RoleAssistant, Content: "ok"},
			{Role: llm.RoleUser, Content: "next turn"},
		})
	}
	cases := []struct {
		name, tool string
		want       bool
	}{
		{"untrusted tool result", "read", true},
		{"tool not in this run", "gone", true},
		{"message without a name", "", true},
		{"trusted-output tool", "plan", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &taintProbe{}
			m := &scriptedModel{}
			m.turns = []func(llm.Request) (*llm.Response, error){p.observe(answer("done", 1, 1))}
			if _, err := Continue(context.Background(), p.options(t, m, okTool("read"), ownTool{okTool("plan")}), restored(c.tool)); err != nil {
				t.Fatal(err)
			}
			if p.seen[0] != c.want || p.calls != map[bool]int{true: 1, false: 0}[c.want] {
				t.Fatalf("tainted before the first call = %v (OnUntrusted called %d times), want %v", p.seen[0], p.calls, c.want)
			}
		})
	}
}

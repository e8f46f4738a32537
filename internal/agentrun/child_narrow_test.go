package agentrun

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// Every key a task file's llm object may carry is a setting the child can
// take as a flag, and a parent's resolved settings apply without error.
func TestLLMSettingsRoundTrip(t *testing.T) {
	for _, key := range wire.LLMSettingKeys {
		if s, ok := config.Lookup(key); !ok || !s.Supported {
			t.Errorf("llm key %q is not a supported setting", key)
		}
	}
	// A new llm.* setting must reach sub-agents too (issue 26): add it to
	// wire.LLMSettingKeys and llmSettings.
	for _, st := range config.Settings() {
		if strings.HasPrefix(st.Key, "llm.") && st.Supported && !slices.Contains(wire.LLMSettingKeys, st.Key) {
			t.Errorf("setting %q does not reach sub-agents: add it to wire.LLMSettingKeys and llmSettings", st.Key)
		}
	}
	cfg := &config.Config{Model: "m", Stream: false, Thinking: "low", ReasoningEffort: "high", ContextWindow: 8192,
		ThinkingBudget: 2048, LLM: config.LLM{IdleTimeout: 30 * time.Second, ResponseFormat: true}}
	m := llmSettings(cfg)
	want := map[string]string{"stream": "false", "thinking": "low", "reasoning_effort": "high", "context_window": "8192",
		"llm.idle_timeout_seconds": "30", "llm.connect_timeout_seconds": "0", "llm.response_format": "true",
		"thinking_budget": "2048", "prompt_caching": "false"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
	var o config.Overrides
	if err := applyLLMSettings(&o, m); err != nil {
		t.Fatal(err)
	}
	if err := applyLLMSettings(&o, map[string]string{"stream": "maybe"}); err == nil || err.Error() != "task file: llm.stream: not a boolean (use true or false)" {
		t.Fatalf("err = %v", err)
	}
}

// The parent's gate denies what the parent denies even when the child's own
// policy allowlists it, and leaves what the parent would ask about to the
// child.
func TestParentGate(t *testing.T) {
	warn := func(string) {}
	g, err := parentGate(&wire.Policy{Classes: map[string]string{"local_write": "deny", "code_execution": "prompt"}}, "", warn)
	if err != nil {
		t.Fatal(err)
	}
	write := loop.GateCall{Tool: "write_file", Assessed: true, Risk: risk.Assessment{Class: risk.LocalWrite, Set: risk.Of(risk.LocalWrite), What: "x.txt"}}
	if err := g.Check(context.Background(), write); err == nil {
		t.Fatal("the parent's denied class passed")
	}
	run := loop.GateCall{Tool: "shell", Assessed: true, Risk: risk.Assessment{Class: risk.CodeExecution, Set: risk.Of(risk.CodeExecution), What: "go test"}}
	if err := g.Check(context.Background(), run); err != nil {
		t.Fatalf("a class the parent would ask about is the child's to decide: %v", err)
	}
	if g, err := parentGate(nil, "", warn); g != nil || err != nil {
		t.Fatalf("no parent policy: %v %v", g, err)
	}
	allow := gateFunc(func(context.Context, loop.GateCall) error { return nil })
	if err := (bothGates{allow, g}).Check(context.Background(), write); err == nil {
		t.Fatal("bothGates let through what one gate denies")
	}
}

type gateFunc func(context.Context, loop.GateCall) error

func (f gateFunc) Check(ctx context.Context, c loop.GateCall) error { return f(ctx, c) }

package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
)

// scriptedModel answers each call with the next scripted response and records
// every request it saw.
type scriptedModel struct {
	mu    sync.Mutex
	turns []func(req llm.Request) (*llm.Response, error)
	reqs  []llm.Request
}

func (m *scriptedModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	n := len(m.reqs)
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if n >= len(m.turns) {
		return nil, fmt.Errorf("script exhausted after %d turns", len(m.turns))
	}
	return m.turns[n](req)
}

func answer(text string, in, out int64) func(llm.Request) (*llm.Response, error) {
	return func(llm.Request) (*llm.Response, error) {
		return &llm.Response{
			Message: llm.Message{Role: llm.RoleAssistant, Content: text},
			Usage:   llm.Usage{InputTokens: in, OutputTokens: out, Present: true},
			Timing:  llm.Timing{Total: 10 * time.Millisecond},
		}, nil
	}
}

func callTools(in, out int64, calls ...llm.ToolCall) func(llm.Request) (*llm.Response, error) {
	return func(llm.Request) (*llm.Response, error) {
		cs := append([]llm.ToolCall(nil), calls...)
		return &llm.Response{
			Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: cs},
			Usage:   llm.Usage{InputTokens: in, OutputTokens: out, Present: true},
		}, nil
	}
}

func tc(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: name, Arguments: args}}
}

// funcTool is a tool defined by a function.
type funcTool struct {
	name string
	fn   func(ctx context.Context, args json.RawMessage) (string, error)
}

func (t funcTool) Name() string            { return t.name }
func (t funcTool) Description() string     { return "test tool " + t.name }
func (t funcTool) Schema() json.RawMessage { return nil }
func (t funcTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	return t.fn(ctx, args)
}

// memSink keeps events in memory.
type memSink struct {
	mu  sync.Mutex
	evs []events.Event
}

func (s *memSink) Write(ev *events.Event) error {
	s.mu.Lock()
	s.evs = append(s.evs, *ev)
	s.mu.Unlock()
	return nil
}

func (s *memSink) types() []events.Type {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]events.Type, len(s.evs))
	for i, e := range s.evs {
		out[i] = e.Type
	}
	return out
}

// noLoopBreaker turns the loop breaker off for tests whose model repeats
// one call on purpose (to fill the context, say).
var noLoopBreaker = LoopLimits{HintAfter: -1, StopAfter: -1}

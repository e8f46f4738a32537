package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/risk"
)

// Tool is anything the model can call: built-in tools, MCP tools and, later,
// sub-agent tools alike. Call returns the result text; an error is a failed call
// and reaches the model as "error: <err>".
type Tool interface {
	Name() string
	Description() string
	Schema() json.RawMessage
	Call(ctx context.Context, args json.RawMessage) (string, error)
}

// ArgsSummarizer is a Tool that describes its own args_summary for
// tool_call_started events (docs/EVENTS.md): a few low-cardinality fields, never
// raw argument values that may hold secrets. A tool without it gets the
// sorted list of its argument keys.
type ArgsSummarizer interface {
	ArgsSummary(args json.RawMessage) map[string]any
}

// RiskAssessor is a Tool that classifies each call before it runs, so the
// Gate can decide on it. An error is a bad call (the model sees it, nothing
// runs). Tools without it reach the Gate unassessed (MCP tools assess
// themselves from their servers' hints).
type RiskAssessor interface {
	AssessRisk(args json.RawMessage) (risk.Assessment, error)
}

// TrustedOutputTool is a Tool whose results, errors included, are only
// odek's own text, made from the model's arguments and odek's state (the
// plan tool): never a file's, a process's, a server's or another agent's
// bytes. Every other tool, MCP tools included, is untrusted output: once one
// of its results reaches the model, the run has ingested untrusted content
// (Options.OnUntrusted). Saying true is a promise; when in doubt, leave the
// interface out.
type TrustedOutputTool interface {
	TrustedOutput() bool
}

// Gate decides whether a call may run, asking the operator if it must; it is
// called concurrently for the calls of one batch. A nil error lets the call
// run; an error is the call's result, counted as denied when it has a
// Denied() bool method that returns true (and as failed otherwise, e.g. an
// interrupt at a prompt).
type Gate interface {
	Check(ctx context.Context, c GateCall) error
}

// GateCall is one call as the Gate sees it.
type GateCall struct {
	Tool     string
	Args     json.RawMessage
	Risk     risk.Assessment
	Assessed bool // false: the tool has no RiskAssessor
	// HookAsk is set when a PreToolUse hook asked for the operator's
	// approval (its reason): the Gate must ask, whatever the policy would
	// allow, and refuse where nobody can answer. A policy deny holds.
	HookAsk string
}

// Model is the language model the loop thinks with.
type Model interface {
	Complete(ctx context.Context, req llm.Request) (*llm.Response, error)
}

// Registry is the one place tools come from. Its tool specs are built once, so
// offering tools to the model costs nothing per iteration.
type Registry struct {
	byName  map[string]Tool
	specs   []llm.ToolSpec
	trusted map[string]bool // names of the tools whose output is trusted
}

// emptySchema is offered for tools that declare none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// NewRegistry indexes tools by name, sorted for a stable request. Two tools
// with one name are an error: a silent winner would hide a misconfiguration.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]Tool, len(tools))}
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		name := t.Name()
		if _, dup := r.byName[name]; dup {
			return nil, fmt.Errorf("loop: two tools are named %q", name)
		}
		r.byName[name] = t
		names = append(names, name)
		if to, ok := t.(TrustedOutputTool); ok && to.TrustedOutput() {
			if r.trusted == nil {
				r.trusted = map[string]bool{}
			}
			r.trusted[name] = true
		}
	}
	sort.Strings(names)
	for _, name := range names {
		t := r.byName[name]
		schema := t.Schema()
		if len(schema) == 0 {
			schema = emptySchema
		}
		r.specs = append(r.specs, llm.ToolSpec{Name: name, Description: t.Description(), Parameters: schema})
	}
	return r, nil
}

// Lookup returns the tool with that name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	if r == nil {
		return nil, false
	}
	t, ok := r.byName[name]
	return t, ok
}

// Specs returns the tool specs offered to the model; callers must not modify them.
func (r *Registry) Specs() []llm.ToolSpec {
	if r == nil {
		return nil
	}
	return r.specs
}

// trustedOutput reports whether results named name come from a tool that
// promises trusted output. An unknown name (a tool not in this run, a
// restored message without a name) is not: fail closed.
func (r *Registry) trustedOutput(name string) bool {
	return r != nil && r.trusted[name]
}

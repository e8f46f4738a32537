package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/odek-run/odek/internal/llm"
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

// Model is the language model the loop thinks with.
type Model interface {
	Complete(ctx context.Context, req llm.Request) (*llm.Response, error)
}

// Registry is the one place tools come from. Its tool specs are built once, so
// offering tools to the model costs nothing per iteration.
type Registry struct {
	byName map[string]Tool
	specs  []llm.ToolSpec
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

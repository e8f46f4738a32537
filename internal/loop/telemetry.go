package loop

import (
	"context"
	"time"

	"github.com/odek-run/odek/internal/telemetry"
)

// toolSpan starts a call's execute_tool span (docs/TELEMETRY.md); without
// a tracer it returns ctx and a nil span, at no cost. An MCP server's tool
// is an "extension", odek's own a "function".
func (r *runner) toolSpan(ctx context.Context, name, id, args string) (context.Context, *telemetry.Span) {
	if r.o.Telemetry == nil {
		return ctx, nil
	}
	kind := "function"
	if t, ok := r.o.Tools.Lookup(name); ok {
		if _, mcp := t.(ServerTool); mcp {
			kind = "extension"
		}
	}
	return r.o.Telemetry.StartTool(ctx, telemetry.ToolInfo{Name: name, CallID: id, Type: kind, Args: args})
}

// trimStart is when a trim begins, for its span: the zero time without
// telemetry (a trim that removes nothing has no span).
func (r *runner) trimStart() time.Time {
	if r.o.Telemetry == nil {
		return time.Time{}
	}
	return time.Now()
}

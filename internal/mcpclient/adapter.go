package mcpclient

import (
	"context"
	"encoding/json"
)

// ToolAdapter exposes one server tool as odek's loop.Tool, named
// <server>__<tool> so tools of different servers never collide.
type ToolAdapter struct {
	// Client is the connection the tool lives on.
	Client *Client
	// ToolName is the tool's name on the server.
	ToolName string
	// Desc is the description shown to the model.
	Desc string
	// Listed is the description as the server wrote it (after the approval
	// Gate's checks), without the untrusted-content fence Desc may carry:
	// what a listing such as odek tools shows. Empty means Desc.
	Listed string
	// ParamSchema is the tool's input JSON Schema.
	ParamSchema json.RawMessage
	// OutputSchema is the schema its structured results must match; nil if none.
	OutputSchema json.RawMessage
	// Annotations are the server's behaviour hints; nil if it sent none.
	Annotations *ToolAnnotations
	// Project marks a tool of a project-defined server, whose hints may
	// only make odek stricter (see AssessRisk).
	Project bool
	// TrustHints is the operator's trust_annotations for the tool's
	// server: only then may a hint relax the policy (see AssessRisk).
	// Never set for a project server.
	TrustHints bool
}

// NewToolAdapter builds the adapter for a discovered tool.
func NewToolAdapter(c *Client, t ToolDef) *ToolAdapter {
	return &ToolAdapter{Client: c, ToolName: t.Name, Desc: t.Description, ParamSchema: t.InputSchema,
		OutputSchema: t.OutputSchema, Annotations: t.Annotations}
}

// Name returns the qualified name <server>__<tool>.
func (a *ToolAdapter) Name() string { return a.Client.Name() + "__" + a.ToolName }

// ServerName is the server the tool lives on (heartbeats and stall reports
// name it).
func (a *ToolAdapter) ServerName() string { return a.Client.Name() }

// Description returns the tool's description.
func (a *ToolAdapter) Description() string { return a.Desc }

// ListedDescription is the description for a listing: the server's own
// text, stable from run to run (Desc's fence carries a fresh nonce).
func (a *ToolAdapter) ListedDescription() string {
	if a.Listed != "" {
		return a.Listed
	}
	return a.Desc
}

// Schema returns the input schema, {"type":"object"} when the server gave none.
func (a *ToolAdapter) Schema() json.RawMessage { return rawJSONSchema(a.ParamSchema) }

// ProducesArtifacts is true: a result over max_result_chars is kept whole as
// a run artifact, and servers may return artifact refs (so the run offers
// artifact_read).
func (a *ToolAdapter) ProducesArtifacts() bool { return true }

// Call invokes the tool; the result text is already wrapped as untrusted.
func (a *ToolAdapter) Call(ctx context.Context, args json.RawMessage) (string, error) {
	r, err := a.Client.callToolResult(ctx, a.ToolName, args)
	if err != nil {
		return "", err
	}
	return r.Text, nil
}

func rawJSONSchema(s json.RawMessage) json.RawMessage {
	if len(s) == 0 || string(s) == "null" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return s
}

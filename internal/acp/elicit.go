package acp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// Elicitor forwards an MCP server's form elicitation to the client.
type Elicitor interface {
	Elicit(ctx context.Context, req ElicitRequest) (ElicitAnswer, error)
}

// ElicitRequest is one MCP elicitation/create request of form mode.
type ElicitRequest struct {
	// Server and Tool name who asks (Tool "" when unknown).
	Server, Tool string
	// Message is the server's text for the person.
	Message string
	// Schema is the server's requestedSchema (a flat object schema).
	Schema json.RawMessage
}

// ElicitAnswer is the client's answer, in MCP's terms: Action is
// "accept" (with Content), "decline" or "cancel".
type ElicitAnswer struct {
	Action  string
	Content map[string]any
}

// elicitor asks the client through elicitation/create (form mode). The
// request carries the session in _meta.odek, and the server and tool.
type elicitor struct {
	sid  func() sdk.SessionId
	box  *outbox
	call func(ctx context.Context, req sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error)
}

var _ Elicitor = (*elicitor)(nil)

func (e *elicitor) Elicit(ctx context.Context, r ElicitRequest) (ElicitAnswer, error) {
	var schema sdk.UnstableElicitationSchema
	if err := json.Unmarshal(r.Schema, &schema); err != nil {
		return ElicitAnswer{Action: "decline"}, fmt.Errorf("requestedSchema: %w", err)
	}
	if schema.Properties == nil {
		schema.Properties = map[string]any{}
	}
	if err := e.box.flush(ctx); err != nil {
		return ElicitAnswer{Action: "cancel"}, err
	}
	resp, err := e.call(ctx, sdk.UnstableCreateElicitationRequest{Form: &sdk.UnstableCreateElicitationForm{
		Message: r.Message, RequestedSchema: schema,
		Meta: map[string]any{"odek": map[string]any{"sessionId": string(e.sid()), "server": r.Server, "tool": r.Tool}},
	}})
	switch {
	case err != nil:
		return ElicitAnswer{Action: "cancel"}, err
	case resp.Accept != nil:
		return ElicitAnswer{Action: "accept", Content: resp.Accept.Content}, nil
	case resp.Decline != nil:
		return ElicitAnswer{Action: "decline"}, nil
	}
	return ElicitAnswer{Action: "cancel"}, nil
}

package acp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/mcpclient"
)

// elicitor is a session's mcpclient.Elicitor: an MCP server's form
// elicitation becomes the client's elicitation/create (form mode; ACP's
// unstable elicitation), the session, server and tool in _meta.odek. A
// client that fails or goes away cancels; a schema that is not an object
// schema declines without asking.
type elicitor struct {
	sid  func() sdk.SessionId
	box  *outbox
	call func(ctx context.Context, req sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error)
}

var _ mcpclient.Elicitor = (*elicitor)(nil)

func (e *elicitor) Elicit(ctx context.Context, r mcpclient.Elicitation) (mcpclient.ElicitAnswer, error) {
	var schema sdk.UnstableElicitationSchema
	if err := json.Unmarshal(r.Schema, &schema); err != nil {
		return mcpclient.ElicitAnswer{Action: "decline"}, fmt.Errorf("requestedSchema: %w", err)
	}
	if schema.Properties == nil {
		schema.Properties = map[string]any{}
	}
	if err := e.box.flush(ctx); err != nil {
		return mcpclient.ElicitAnswer{Action: "cancel"}, err
	}
	resp, err := e.call(ctx, sdk.UnstableCreateElicitationRequest{Form: &sdk.UnstableCreateElicitationForm{
		Message: r.Message, RequestedSchema: schema,
		Meta: map[string]any{"odek": map[string]any{"sessionId": string(e.sid()), "server": r.Server, "tool": r.Tool}},
	}})
	switch {
	case err != nil:
		return mcpclient.ElicitAnswer{Action: "cancel"}, err
	case resp.Accept != nil:
		return mcpclient.ElicitAnswer{Action: "accept", Content: resp.Accept.Content}, nil
	case resp.Decline != nil:
		return mcpclient.ElicitAnswer{Action: "decline"}, nil
	}
	return mcpclient.ElicitAnswer{Action: "cancel"}, nil
}

package mcpclient

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// Elicitor asks a person for what a server's form elicitation requests:
// Options.Elicit, which an editor (odek acp) supplies. The configured
// values (mcp_servers.<s>.elicitation) still come first; the person is
// asked only what they cannot answer.
type Elicitor interface {
	// Elicit shows the request and returns the person's answer. It is
	// called on its own goroutine, never the connection's reader, and may
	// wait for as long as ctx allows (the call's, or the connection's life
	// for a 2025 server's request, which names no call). An error is
	// "nobody answered": the server is told decline.
	Elicit(ctx context.Context, e Elicitation) (ElicitAnswer, error)
}

// Elicitation is one form elicitation a server sent.
type Elicitation struct {
	// Server and Tool name who asks; Tool is "" when the request names no
	// call and more than one runs.
	Server, Tool string
	// Message is the server's text for the person (untrusted).
	Message string
	// Schema is the server's requestedSchema as it sent it (untrusted).
	Schema json.RawMessage
}

// ElicitAnswer is the person's answer in MCP's terms: Action "accept"
// (with Content), "decline" or "cancel".
type ElicitAnswer struct {
	Action  string
	Content map[string]any
}

// The actions of an elicitation result.
const (
	elicitAccept  = "accept"
	elicitDecline = "decline"
	elicitCancel  = "cancel"
)

// askPerson puts the request to Options.Elicit and returns the result to
// send the server, with the notice's reason. An accept without content is
// an accept of no fields; an action MCP does not know is a decline.
func (c *Client) askPerson(ctx context.Context, tool string, p elicitParams) (map[string]any, string) {
	ans, err := c.opts.Elicit.Elicit(ctx, Elicitation{Server: c.name, Tool: tool, Message: p.Message, Schema: p.rawSchema()})
	switch {
	case err != nil:
		return map[string]any{"action": elicitDecline}, "nobody answered: " + clip(err.Error(), 200)
	case ans.Action == elicitAccept:
		content := ans.Content
		if content == nil {
			content = map[string]any{}
		}
		return map[string]any{"action": elicitAccept, "content": content}, "answered by a person: fields " + joinKeys(content)
	case ans.Action == elicitCancel:
		return map[string]any{"action": elicitCancel}, "cancelled by a person"
	}
	return map[string]any{"action": elicitDecline}, "declined by a person"
}

// joinKeys lists an answer's fields, sorted, comma-separated.
func joinKeys(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, untrusted.OneLine(k, 64))
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

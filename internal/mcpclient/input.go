package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// inputDeclinedError is a call whose server asked for input odek could not
// give: odek runs without asking anyone, so only values the operator
// configured under mcp_servers.<s>.elicitation can answer.
type inputDeclinedError struct {
	Server, Tool, Method, Reason string
}

func (e *inputDeclinedError) Error() string {
	return fmt.Sprintf("the server asked for input (%s) and odek declined: %s", e.Method, e.Reason)
}

// inputRequest is one entry of an InputRequiredResult's inputRequests.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// elicitParams is the part of an elicitation request odek reads; the
// schema is kept as sent, for a person's form.
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// elicitSchema is what the configured values are matched against.
type elicitSchema struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// rawSchema is the requested schema, {} when the server sent none.
func (p elicitParams) rawSchema() json.RawMessage {
	if len(p.RequestedSchema) == 0 {
		return json.RawMessage(`{}`)
	}
	return p.RequestedSchema
}

// answerInput builds the retry of an input_required tools/call: every
// request answered (elicit), requestState echoed. A request nobody can
// answer declines the whole call.
func (c *Client) answerInput(ctx context.Context, tool string, res *callResultWire, params map[string]any) (map[string]any, error) {
	keys := make([]string, 0, len(res.InputRequests))
	for k := range res.InputRequests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	responses := map[string]any{}
	for _, k := range keys {
		var r inputRequest
		if err := json.Unmarshal(res.InputRequests[k], &r); err != nil {
			return nil, fmt.Errorf("malformed inputRequests[%q]: %w", clip(k, 64), err)
		}
		answer, err := c.elicit(ctx, tool, r.Method, r.Params)
		if err != nil {
			return nil, err
		}
		responses[k] = answer
	}
	next := map[string]any{"name": params["name"], "arguments": params["arguments"]}
	if len(responses) > 0 {
		next["inputResponses"] = responses
	}
	if res.RequestState != nil {
		next["requestState"] = *res.RequestState
	}
	return next, nil
}

// elicit answers one request for input: from the configured values when
// they hold every required field, else from a person (Options.Elicit),
// else it declines with an *inputDeclinedError. Every outcome is a
// notice. A person's decline or cancel is an answer for the server, not
// an error.
func (c *Client) elicit(ctx context.Context, tool, method string, raw json.RawMessage) (map[string]any, error) {
	decline := func(reason string) (map[string]any, error) {
		m := untrusted.OneLine(method, 64)
		c.notice(Notice{Kind: NoticeInputDeclined, Tool: tool, Method: m, Reason: reason})
		return nil, &inputDeclinedError{Server: c.name, Tool: tool, Method: m, Reason: reason}
	}
	if method != methodElicitationCreate {
		return decline("odek answers only elicitation requests")
	}
	var p elicitParams
	var s elicitSchema
	if json.Unmarshal(raw, &p) != nil || (len(p.RequestedSchema) > 0 && json.Unmarshal(p.RequestedSchema, &s) != nil) {
		return decline("malformed elicitation request")
	}
	if p.Mode != "" && p.Mode != "form" {
		if c.opts.Elicit != nil {
			return decline(fmt.Sprintf("elicitation mode %q is not forwarded; odek forwards form requests only", untrusted.OneLine(p.Mode, 32)))
		}
		return decline(fmt.Sprintf("elicitation mode %q needs a person; odek runs without one", untrusted.OneLine(p.Mode, 32)))
	}
	content, fields, missing := c.configured(s)
	if len(c.cfg.Elicitation) > 0 && missing == "" {
		c.notice(Notice{Kind: NoticeInputAnswered, Tool: tool, Method: methodElicitationCreate, Reason: "answered fields " + strings.Join(fields, ",")})
		return map[string]any{"action": elicitAccept, "content": content}, nil
	}
	if c.opts.Elicit != nil {
		answer, reason := c.askPerson(ctx, tool, p)
		kind := NoticeInputDeclined
		if answer["action"] == elicitAccept {
			kind = NoticeInputAnswered
		}
		c.notice(Notice{Kind: kind, Tool: tool, Method: methodElicitationCreate, Reason: reason})
		return answer, nil
	}
	if len(c.cfg.Elicitation) == 0 {
		return decline(fmt.Sprintf("no values configured (set mcp_servers.%s.elicitation to answer %q)", c.name, untrusted.OneLine(p.Message, 120)))
	}
	return decline(fmt.Sprintf("required field %q has no value in mcp_servers.%s.elicitation", untrusted.OneLine(missing, 64), c.name))
}

// configured is the content the configured values give for s, the fields
// they fill (sorted), and the first required field they leave empty.
func (c *Client) configured(s elicitSchema) (map[string]json.RawMessage, []string, string) {
	content := map[string]json.RawMessage{}
	var fields []string
	for name := range s.Properties {
		if v, ok := c.cfg.Elicitation[name]; ok {
			content[name] = v
			fields = append(fields, name)
		}
	}
	slices.Sort(fields)
	for _, req := range s.Required {
		if _, ok := content[req]; !ok {
			return content, fields, req
		}
	}
	return content, fields, ""
}

// answerElicitation answers a 2025 server's elicitation/create request
// (elicit): declined when nobody can answer. ctx lasts as long as the
// connection. The request names no call, so the notice names the tool
// only when exactly one call to this server is running.
func (c *Client) answerElicitation(ctx context.Context, params json.RawMessage) any {
	answer, err := c.elicit(ctx, c.calls.only(), methodElicitationCreate, params)
	if err != nil {
		return map[string]any{"action": elicitDecline}
	}
	return answer
}

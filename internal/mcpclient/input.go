package mcpclient

import (
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

// elicitParams is the part of an elicitation request odek reads.
type elicitParams struct {
	Mode            string `json:"mode"`
	Message         string `json:"message"`
	RequestedSchema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	} `json:"requestedSchema"`
}

// answerInput builds the retry of an input_required tools/call: every
// request answered from the configured values, requestState echoed. A
// request odek cannot answer declines the whole call.
func (c *Client) answerInput(tool string, res *callResultWire, params map[string]any) (map[string]any, error) {
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
		answer, fields, err := c.elicit(tool, r.Method, r.Params)
		if err != nil {
			return nil, err
		}
		c.notice(Notice{Kind: NoticeInputAnswered, Tool: tool, Method: r.Method, Reason: "answered fields " + strings.Join(fields, ",")})
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

// elicit answers one request for input from the configured values, or
// returns an *inputDeclinedError (and a notice saying so).
func (c *Client) elicit(tool, method string, raw json.RawMessage) (map[string]any, []string, error) {
	decline := func(reason string) (map[string]any, []string, error) {
		m := untrusted.OneLine(method, 64)
		c.notice(Notice{Kind: NoticeInputDeclined, Tool: tool, Method: m, Reason: reason})
		return nil, nil, &inputDeclinedError{Server: c.name, Tool: tool, Method: m, Reason: reason}
	}
	if method != methodElicitationCreate {
		return decline("odek answers only elicitation requests")
	}
	var p elicitParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return decline("malformed elicitation request")
	}
	if p.Mode != "" && p.Mode != "form" {
		return decline(fmt.Sprintf("elicitation mode %q needs a person; odek runs without one", untrusted.OneLine(p.Mode, 32)))
	}
	if len(c.cfg.Elicitation) == 0 {
		return decline(fmt.Sprintf("no values configured (set mcp_servers.%s.elicitation to answer %q)", c.name, untrusted.OneLine(p.Message, 120)))
	}
	content := map[string]json.RawMessage{}
	var fields []string
	for name := range p.RequestedSchema.Properties {
		if v, ok := c.cfg.Elicitation[name]; ok {
			content[name] = v
			fields = append(fields, name)
		}
	}
	for _, req := range p.RequestedSchema.Required {
		if _, ok := content[req]; !ok {
			return decline(fmt.Sprintf("required field %q has no value in mcp_servers.%s.elicitation", untrusted.OneLine(req, 64), c.name))
		}
	}
	slices.Sort(fields)
	return map[string]any{"action": "accept", "content": content}, fields, nil
}

// answerElicitation answers a legacy server's elicitation/create request:
// accepted from the configured values (an input_answered notice), declined
// otherwise (input_declined). The request names no call, so the notice
// names the tool only when exactly one call to this server is running.
func (c *Client) answerElicitation(params json.RawMessage) any {
	tool := c.calls.only()
	answer, fields, err := c.elicit(tool, methodElicitationCreate, params)
	if err != nil {
		return map[string]any{"action": "decline"}
	}
	c.notice(Notice{Kind: NoticeInputAnswered, Tool: tool, Method: methodElicitationCreate, Reason: "answered fields " + strings.Join(fields, ",")})
	return answer
}

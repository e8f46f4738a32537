package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/odek-run/odek/internal/telemetry"
)

// roundTrip sends one request on cn in its MCP client span (the MCP
// semantic conventions, docs/TELEMETRY.md), the span's trace context in
// params._meta in either era (and, over HTTP, in the request's headers:
// httpTransport.do). Without a tracer it is cn.roundTrip itself.
func (c *Client) roundTrip(ctx context.Context, cn *conn, method string, params any) (*inbound, error) {
	tel := c.opts.Telemetry
	if c.opts.TelemetryFor != nil {
		tel = c.opts.TelemetryFor()
	}
	if tel == nil {
		return cn.roundTrip(ctx, method, params)
	}
	transport := "pipe"
	if c.http != nil {
		transport = "tcp"
	}
	ctx, span := tel.StartMCP(ctx, telemetry.MCPInfo{Method: method, Target: spanTarget(method, params),
		Server: c.name, Transport: transport, URL: c.cfg.URL, Protocol: c.protocolVersion()})
	m, err := cn.roundTrip(ctx, method, withTraceMeta(ctx, params))
	var code int64
	failed := err
	switch {
	case err == nil && m.isError(): // an error answer: the caller reads it, the span records it
		e := m.rpcError()
		code, failed = e.Code, errors.New(e.Message)
	case err == nil && method == methodToolsCall && toolFailed(m.Result):
		failed = errToolResult
	}
	span.EndMCP(code, failed)
	return m, err
}

// errToolResult is a tools/call whose result says isError: the call
// worked, the tool failed (error.type tool_error, as the MCP conventions
// name it).
var errToolResult = toolError{}

type toolError struct{}

func (toolError) Error() string      { return "the tool's result is an error" }
func (toolError) ErrorClass() string { return "tool_error" }

// toolFailed reports a result with "isError": true. The result is decoded
// only when it mentions the member.
func toolFailed(result json.RawMessage) bool {
	if !bytes.Contains(result, []byte(`"isError"`)) {
		return false
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(result, &r) == nil && r.IsError
}

// spanTarget is the span name's target: the tool a tools/call calls.
func spanTarget(method string, params any) string {
	if method != methodToolsCall {
		return ""
	}
	if p, ok := params.(map[string]any); ok {
		name, _ := p["name"].(string)
		return name
	}
	return ""
}

// withTraceMeta puts the trace context into params._meta.
func withTraceMeta(ctx context.Context, params any) any {
	switch p := params.(type) {
	case map[string]any:
		return telemetry.InjectMeta(ctx, p)
	case nil:
		return telemetry.InjectMeta(ctx, nil)
	case initParams:
		p.Meta, _ = telemetry.InjectMeta(ctx, nil)["_meta"].(map[string]any)
		return p
	}
	return params
}

package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// supportedVersions are the protocol revisions whose tools surface odek can use
// unchanged. odek asks for 2025-03-26; a server may answer an older or newer one
// from this list, anything else is disconnected.
var supportedVersions = map[string]bool{
	"2024-11-05": true, ProtocolVersion: true, "2025-06-18": true, "2025-11-25": true,
}

// ToolDef is one tool from tools/list.
type ToolDef struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema the tool's structuredContent must
	// match; nil when the tool declares none.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the server's hints about the tool's behaviour; nil
	// when it sent none. Hints, not guarantees: odek lets them make its
	// approval stricter only.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
}

// ToolAnnotations are MCP's behaviour hints for a tool. A nil hint was not
// sent (the spec's defaults then apply: not read-only, destructive, not
// idempotent, open world).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

type initParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ClientInfo      clientInfo     `json:"clientInfo"`
	Meta            map[string]any `json:"_meta,omitempty"` // the trace context, when traced
}

type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Discover detects the server's era and opens it (once), then returns
// every tool the server offers, within Options.discovery. An opening failure
// or a tools/list past a discovery bound closes the client: the server is
// rejected as a whole.
func (c *Client) Discover(ctx context.Context) ([]ToolDef, error) {
	if err := c.open(ctx); err != nil {
		_ = c.closeFor(ctx)
		return nil, err
	}
	tools, err := c.listTools(ctx)
	if err != nil {
		var le *discoveryLimitError
		if errors.As(err, &le) {
			_ = c.closeFor(ctx)
		}
		return nil, err
	}
	c.restart.remember(tools)
	return tools, nil
}

// initialize runs the legacy handshake with version (the one odek asks for
// unless the server's discover list named another).
func (c *Client) initialize(ctx context.Context, version string) error {
	p := initParams{ProtocolVersion: version, Capabilities: c.clientCapabilities(), ClientInfo: clientInfo{Name: "odek", Version: c.opts.Version}}
	raw, err := c.request(ctx, methodInitialize, methodInitialize, p)
	if err != nil {
		return err
	}
	var res struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return newError(c.name, methodInitialize, classMCP, fmt.Errorf("malformed result: %w", err))
	}
	if !supportedVersions[res.ProtocolVersion] {
		return newError(c.name, methodInitialize, classMCP, fmt.Errorf(
			"server answered unsupported protocol version %q (odek speaks %s; also accepts 2024-11-05, 2025-06-18, 2025-11-25); disconnected",
			clip(res.ProtocolVersion, 64), ProtocolVersion))
	}
	c.setState(&serverState{era: EraLegacy, version: res.ProtocolVersion, caps: res.Capabilities})
	if c.http != nil {
		c.http.setProtocolVersion(res.ProtocolVersion)
	}
	// Only now, with the reader already running, may initialized go out.
	rctx, cancel := context.WithTimeout(ctx, c.lim.timeout)
	defer cancel()
	if err := c.link().notifyCtx(rctx, methodInitializedNotification, nil); err != nil {
		return c.failure(methodInitializedNotification, c.lim.timeout, err)
	}
	if c.http != nil {
		c.http.listen() // requests outside a call arrive there
	}
	return nil
}

// request runs one request within the server timeout and returns its result,
// turning every failure into an *Error for op.
func (c *Client) request(ctx context.Context, op, method string, params any) (json.RawMessage, error) {
	timeout := c.requestTimeout(ctx)
	rctx, cancel := context.WithTimeout(ctx, c.lim.timeout)
	defer cancel()
	m, err := c.roundTrip(rctx, c.link(), method, params)
	if err != nil {
		return nil, c.failure(op, timeout, err)
	}
	if m.isError() {
		return nil, newError(c.name, op, classMCP, m.rpcError().toRPCError())
	}
	return m.Result, nil
}

// failure classifies a transport or context error for op.
func (c *Client) failure(op string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return newError(c.name, op, classDeadline, &timeoutError{Timeout: timeout.Round(time.Millisecond)})
	case errors.Is(err, context.Canceled):
		return newError(c.name, op, classCanceled, err)
	}
	return newError(c.name, op, classMCP, err)
}

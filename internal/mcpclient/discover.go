package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/odek-run/odek/internal/untrusted"
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
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type initParams struct {
	ProtocolVersion string     `json:"protocolVersion"`
	Capabilities    struct{}   `json:"capabilities"`
	ClientInfo      clientInfo `json:"clientInfo"`
}

type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Discover performs the handshake (once) and returns every tool the server
// offers, within Options.Discovery. A handshake failure or a tools/list past
// a discovery bound closes the client: the server is rejected as a whole.
func (c *Client) Discover(ctx context.Context) ([]ToolDef, error) {
	if err := c.initialize(ctx); err != nil {
		_ = c.closeFor(ctx)
		return nil, err
	}
	tools, err := c.listTools(ctx)
	if err != nil {
		var le *DiscoveryLimitError
		if errors.As(err, &le) {
			_ = c.closeFor(ctx)
		}
		return nil, err
	}
	return tools, nil
}

func (c *Client) initialize(ctx context.Context) error {
	c.initMu.Lock()
	defer c.initMu.Unlock()
	if c.inited.Load() {
		return nil
	}
	p := initParams{ProtocolVersion: ProtocolVersion, ClientInfo: clientInfo{Name: "odek", Version: c.opts.Version}}
	raw, err := c.request(ctx, "initialize", "initialize", p)
	if err != nil {
		return err
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return newError(c.name, "initialize", ClassMCP, fmt.Errorf("malformed result: %w", err))
	}
	if !supportedVersions[res.ProtocolVersion] {
		return newError(c.name, "initialize", ClassMCP, fmt.Errorf(
			"server answered unsupported protocol version %q (odek speaks %s; also accepts 2024-11-05, 2025-06-18, 2025-11-25); disconnected",
			clip(res.ProtocolVersion, 64), ProtocolVersion))
	}
	if c.http != nil {
		c.http.setProtocolVersion(res.ProtocolVersion)
	}
	// Only now, with the reader already running, may initialized go out.
	rctx, cancel := context.WithTimeout(ctx, c.lim.timeout)
	defer cancel()
	if err := c.conn.notifyCtx(rctx, "notifications/initialized", nil); err != nil {
		return c.failure("notifications/initialized", c.lim.timeout, err)
	}
	c.inited.Store(true)
	return nil
}

// request runs one request within the server timeout and returns its result,
// turning every failure into an *Error for op.
func (c *Client) request(ctx context.Context, op, method string, params any) (json.RawMessage, error) {
	timeout := c.requestTimeout(ctx)
	rctx, cancel := context.WithTimeout(ctx, c.lim.timeout)
	defer cancel()
	m, err := c.conn.roundTrip(rctx, method, params)
	if err != nil {
		return nil, c.failure(op, timeout, err)
	}
	if m.isError() {
		e := m.rpcError()
		return nil, newError(c.name, op, ClassMCP, &RPCError{Code: e.Code, Message: untrusted.OneLine(e.Message, maxRPCMessage)})
	}
	return m.Result, nil
}

// failure classifies a transport or context error for op.
func (c *Client) failure(op string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return newError(c.name, op, ClassDeadline, &TimeoutError{Timeout: timeout.Round(time.Millisecond)})
	case errors.Is(err, context.Canceled):
		return newError(c.name, op, ClassCanceled, err)
	}
	return newError(c.name, op, ClassMCP, err)
}

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

// Discovery caps: a hostile or buggy server must not page forever or register
// an unbounded number of tools.
const (
	maxToolPages = 100
	maxTools     = 1000
)

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
// offers. A handshake failure closes the client.
func (c *Client) Discover(ctx context.Context) ([]ToolDef, error) {
	if err := c.initialize(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c.listTools(ctx)
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

// listTools follows nextCursor pages within maxToolPages and maxTools and
// rejects the server on any invalid or duplicate tool name.
func (c *Client) listTools(ctx context.Context) ([]ToolDef, error) {
	var tools []ToolDef
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, newError(c.name, "tools/list", ClassMCP, fmt.Errorf("more than %d pages (nextCursor never ended)", maxToolPages))
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := c.request(ctx, "tools/list", "tools/list", params)
		if err != nil {
			return nil, err
		}
		var res struct {
			Tools      []ToolDef `json:"tools"`
			NextCursor string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, newError(c.name, "tools/list", ClassMCP, fmt.Errorf("malformed result: %w", err))
		}
		for _, t := range res.Tools {
			if err := c.checkTool(t, seen, len(tools)); err != nil {
				return nil, err
			}
			seen[t.Name] = true
			if len(t.InputSchema) == 0 || string(t.InputSchema) == "null" {
				t.InputSchema = json.RawMessage(`{"type":"object"}`)
			}
			tools = append(tools, t)
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		cursor = res.NextCursor
	}
}

func (c *Client) checkTool(t ToolDef, seen map[string]bool, have int) error {
	switch {
	case have >= maxTools:
		return newError(c.name, "tools/list", ClassMCP, fmt.Errorf("more than %d tools", maxTools))
	case !validName(t.Name):
		return newError(c.name, "tools/list", ClassMCP, fmt.Errorf(
			"invalid tool name %q: must be 1-64 characters of [A-Za-z0-9_-] without \"__\"; server rejected", clip(t.Name, 80)))
	case seen[t.Name]:
		return newError(c.name, "tools/list", ClassMCP, fmt.Errorf("duplicate tool name %q; server rejected", t.Name))
	}
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

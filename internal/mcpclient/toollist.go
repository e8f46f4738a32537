package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// discoveryLimits bound what one server's tools/list may cost, all pages
// together, so that a hostile server cannot make odek hold (or later send to
// the model) more than a few MiB before anyone approves anything. Zero
// fields take the Default* values. Past any bound the server is rejected
// with a *discoveryLimitError.
type discoveryLimits struct {
	// Bytes caps the tools/list results of all pages together. While
	// discovery runs, no response is read past what is left of it.
	Bytes int64
	// Tools caps the number of tools.
	Tools int
	// Pages caps the number of pages (nextCursor hops).
	Pages int
	// NameBytes caps each tool name (the name rule allows at most 64).
	NameBytes int
	// DescriptionBytes caps each tool description.
	DescriptionBytes int
	// SchemaBytes caps each tool's input schema as sent. Registration later
	// skips schemas over approval's smaller screening cap; this bound is
	// about what discovery may hold at all.
	SchemaBytes int
	// CursorBytes caps each nextCursor, which odek sends back.
	CursorBytes int
}

// Default discovery bounds.
const (
	defaultDiscoveryBytes            = 4 << 20
	defaultDiscoveryTools            = 1000
	defaultDiscoveryPages            = 100
	defaultDiscoveryNameBytes        = 64
	defaultDiscoveryDescriptionBytes = 32 << 10
	defaultDiscoverySchemaBytes      = 1 << 20
	defaultDiscoveryCursorBytes      = 4 << 10
)

// withDefaults fills zero (or negative) fields with the defaults.
func (l discoveryLimits) withDefaults() discoveryLimits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.Bytes <= 0 {
		l.Bytes = defaultDiscoveryBytes
	}
	def(&l.Tools, defaultDiscoveryTools)
	def(&l.Pages, defaultDiscoveryPages)
	def(&l.NameBytes, defaultDiscoveryNameBytes)
	def(&l.DescriptionBytes, defaultDiscoveryDescriptionBytes)
	def(&l.SchemaBytes, defaultDiscoverySchemaBytes)
	def(&l.CursorBytes, defaultDiscoveryCursorBytes)
	return l
}

// Names of the discovery bounds, as discoveryLimitError reports them.
const (
	boundBytes            = "tools_list_bytes"
	boundTools            = "tools"
	boundPages            = "tools_list_pages"
	boundNameBytes        = "tool_name_bytes"
	boundDescriptionBytes = "tool_description_bytes"
	boundSchemaBytes      = "tool_schema_bytes"
	boundCursorBytes      = "cursor_bytes"
	// boundDiscoverBytes caps a server/discover result (256 KiB).
	boundDiscoverBytes = "discover_result_bytes"
)

// listTools follows nextCursor pages within the discovery bounds and
// rejects the server on any invalid or duplicate tool name.
func (c *Client) listTools(ctx context.Context) ([]ToolDef, error) {
	lim := c.opts.discovery.withDefaults()
	defer c.read.lower(0) // calls read with max_response_bytes again
	var tools []ToolDef
	xheaders := map[string][]paramHeader{}
	seen := map[string]bool{}
	var used int64
	cursor := ""
	for page := 0; ; page++ {
		if page == lim.Pages {
			return nil, c.overBound(boundPages, "", int64(lim.Pages), int64(page+1))
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		left := lim.Bytes - used
		c.read.lower(left)
		raw, err := c.request(ctx, methodToolsList, methodToolsList, c.withMeta(params))
		if tl := (*ResponseTooLargeError)(nil); errors.As(err, &tl) && tl.Limit == left && left < c.lim.maxResp {
			return nil, c.overBound(boundBytes, "", lim.Bytes, used+tl.Observed)
		}
		if err != nil {
			return nil, err
		}
		if used += int64(len(raw)); used > lim.Bytes {
			return nil, c.overBound(boundBytes, "", lim.Bytes, used)
		}
		var res struct {
			Tools      []ToolDef `json:"tools"`
			NextCursor string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, newError(c.name, "tools/list", classMCP, fmt.Errorf("malformed result: %w", err))
		}
		for _, t := range res.Tools {
			if err := c.checkTool(t, seen, len(tools), lim); err != nil {
				return nil, err
			}
			seen[t.Name] = true
			if c.http != nil {
				// Streamable HTTP clients must leave out a tool whose
				// x-mcp-header annotations break the rules, and mirror the rest.
				ph, err := parseParamHeaders(t.InputSchema)
				if err != nil {
					c.warn = append(c.warn, fmt.Sprintf("mcp server %q: tool %q left out: its inputSchema's %v", c.name, t.Name, err))
					continue
				}
				xheaders[t.Name] = ph
			}
			if len(t.InputSchema) == 0 || string(t.InputSchema) == "null" {
				t.InputSchema = json.RawMessage(`{"type":"object"}`)
			}
			tools = append(tools, t)
		}
		if res.NextCursor == "" {
			c.outSchemas.set(tools)
			if c.http != nil {
				c.http.setParamHeaders(xheaders)
			}
			return tools, nil
		}
		if n := len(res.NextCursor); n > lim.CursorBytes {
			return nil, c.overBound(boundCursorBytes, "", int64(lim.CursorBytes), int64(n))
		}
		cursor = res.NextCursor
	}
}

func (c *Client) checkTool(t ToolDef, seen map[string]bool, have int, lim discoveryLimits) error {
	switch {
	case have >= lim.Tools:
		return c.overBound(boundTools, "", int64(lim.Tools), int64(have+1))
	case len(t.Name) > lim.NameBytes:
		return c.overBound(boundNameBytes, clip(t.Name, 64), int64(lim.NameBytes), int64(len(t.Name)))
	case len(t.Description) > lim.DescriptionBytes || len(t.Title) > lim.DescriptionBytes:
		return c.overBound(boundDescriptionBytes, t.Name, int64(lim.DescriptionBytes), int64(max(len(t.Description), len(t.Title))))
	case len(t.InputSchema) > lim.SchemaBytes:
		return c.overBound(boundSchemaBytes, t.Name, int64(lim.SchemaBytes), int64(len(t.InputSchema)))
	case len(t.OutputSchema) > lim.SchemaBytes:
		return c.overBound(boundSchemaBytes, t.Name, int64(lim.SchemaBytes), int64(len(t.OutputSchema)))
	case !validName(t.Name):
		return newError(c.name, "tools/list", classMCP, fmt.Errorf(
			"invalid tool name %q: must be 1-64 characters of [A-Za-z0-9_-] without \"__\"; server rejected", clip(t.Name, 80)))
	case seen[t.Name]:
		return newError(c.name, "tools/list", classMCP, fmt.Errorf("duplicate tool name %q; server rejected", t.Name))
	}
	return nil
}

func (c *Client) overBound(bound, tool string, limit, observed int64) error {
	return newError(c.name, "tools/list", classMCP, &discoveryLimitError{Bound: bound, Tool: tool, Limit: limit, Observed: observed})
}

package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/artifact"
)

// maxRPCMessage caps a JSON-RPC error message quoted in our error text.
const maxRPCMessage = 512

// CallResult is a tool result ready for the model.
type CallResult struct {
	// Text is the rendered result wrapped as untrusted content.
	Text string
	// ArtifactCount is the number of "- artifact " metadata lines in Text.
	ArtifactCount int
	// Truncated reports that max_result_chars cut the result.
	Truncated bool
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type callResultWire struct {
	Content []artifact.Content `json:"content"`
	IsError bool               `json:"isError"`
}

// CallTool invokes a tool with JSON arguments and returns the wrapped result text.
func (c *Client) CallTool(ctx context.Context, name string, argsJSON string) (string, error) {
	r, err := c.CallToolResult(ctx, name, json.RawMessage(argsJSON))
	if err != nil {
		return "", err
	}
	return r.Text, nil
}

// CallToolResult invokes a tool and has internal/artifact render its result
// for the model (text, content summaries, validated artifact refs,
// max_result_chars, the untrusted wrapper).
func (c *Client) CallToolResult(ctx context.Context, name string, args json.RawMessage) (*CallResult, error) {
	op := "tool " + name
	if !c.inited.Load() {
		return nil, newError(c.name, op, ClassSetup, ErrNotDiscovered)
	}
	raw, err := c.request(ctx, op, "tools/call", callParams{Name: name, Arguments: normalizeArgs(args)})
	if err != nil {
		var e *Error
		if errors.As(err, &e) && errors.As(e.Err, new(*RPCError)) {
			e.Op = "tools/call" // as docs/MCP.md words it: `mcpclient <s>: tools/call: MCP error <code>: <msg>`
		}
		return nil, err
	}
	var res callResultWire
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, newError(c.name, op, ClassMCP, fmt.Errorf("malformed tools/call result: %w", err))
	}
	o := artifact.ResultOptions{Server: c.name, Tool: name, Roots: c.cfg.ArtifactRoots, MaxChars: c.lim.maxChars, Store: c.opts.Store}
	if res.IsError {
		return nil, newError(c.name, op+" returned error", ClassMCP, &ToolError{Text: artifact.RenderError(res.Content, o)})
	}
	r, err := artifact.RenderResult(res.Content, o)
	if err != nil {
		return nil, newError(c.name, op, ClassMCP, err)
	}
	return &CallResult{Text: r.Text, ArtifactCount: r.ArtifactCount, Truncated: r.Truncated}, nil
}

// normalizeArgs sends parsed JSON when it parses; empty or null becomes {},
// anything unparseable is sent as a JSON string of the raw text.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	if json.Valid(t) {
		return json.RawMessage(t)
	}
	s, _ := json.Marshal(strings.ToValidUTF8(string(args), "\uFFFD"))
	return s
}

// clip caps s at n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

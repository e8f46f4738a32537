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
	"github.com/odek-run/odek/internal/untrusted"
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
	Content []contentBlock `json:"content"`
	IsError bool           `json:"isError"`
}

// CallTool invokes a tool with JSON arguments and returns the wrapped result text.
func (c *Client) CallTool(ctx context.Context, name string, argsJSON string) (string, error) {
	r, err := c.CallToolResult(ctx, name, json.RawMessage(argsJSON))
	if err != nil {
		return "", err
	}
	return r.Text, nil
}

// CallToolResult invokes a tool and renders its result: text items, one
// metadata line per non-text block, artifact refs validated against the
// server's roots, max_result_chars applied, untrusted wrapper around it all.
func (c *Client) CallToolResult(ctx context.Context, name string, args json.RawMessage) (*CallResult, error) {
	op := "tool " + name
	if !c.inited.Load() {
		return nil, newError(c.name, op, ClassSetup, ErrNotDiscovered)
	}
	raw, err := c.request(ctx, op, "tools/call", callParams{Name: name, Arguments: normalizeArgs(args)})
	if err != nil {
		var e *Error
		if errors.As(err, &e) && errors.As(e.Err, new(*RPCError)) {
			e.Op = "tools/call" // exactly BEHAVIOR 4.3: `mcpclient <s>: tools/call: MCP error <code>: <msg>`
		}
		return nil, err
	}
	var res callResultWire
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, newError(c.name, op, ClassMCP, fmt.Errorf("malformed tools/call result: %w", err))
	}
	items := make([]string, 0, len(res.Content))
	for i := range res.Content {
		items = append(items, res.Content[i].render())
	}
	if res.IsError {
		return nil, newError(c.name, op+" returned error", ClassMCP, &ToolError{Text: c.errorText(name, items)})
	}
	return c.render(name, items)
}

func (c *Client) render(tool string, items []string) (*CallResult, error) {
	p, err := artifact.Process(items, artifact.ProcessOptions{
		Server: c.name, Tool: tool, Roots: c.cfg.ArtifactRoots, MaxChars: c.lim.maxChars,
	})
	if err != nil {
		if re := (*artifact.RefError)(nil); errors.As(err, &re) {
			err = fmt.Errorf("artifact ref rejected: %w", err)
		}
		return nil, newError(c.name, "tool "+tool, ClassMCP, err)
	}
	text, count := p.Text, p.ArtifactCount
	if c.opts.Store != nil {
		for _, v := range p.Artifacts {
			// A ref whose id is reserved for saved results stays unreadable;
			// its metadata line is still shown.
			_ = c.opts.Store.Register(v, v.Ref.ID)
		}
	}
	if p.Truncated && c.opts.Store != nil {
		source := "mcp:" + c.name + ":" + tool
		if id, err := c.opts.Store.SaveResult(source, "text/plain; charset=utf-8", []byte(p.Full)); err == nil {
			text += "\n" + artifact.FormatMetadataLine(id, "text/plain; charset=utf-8", int64(len(p.Full)), "",
				"full untruncated result of "+c.name+"__"+tool+"; page through it with artifact_read")
			count++
		}
	}
	return &CallResult{Text: untrusted.Wrap("mcp:"+c.name+":"+tool, text), ArtifactCount: count, Truncated: p.Truncated}, nil
}

// errorText renders an isError result: its items joined, capped at
// max_result_chars with the standard notice, wrapped as untrusted.
func (c *Client) errorText(tool string, items []string) string {
	text := strings.Join(items, "\n")
	if n := utf8.RuneCountInString(text); n > c.lim.maxChars {
		notice := artifact.TruncationNotice(c.name, tool, n, c.lim.maxChars)
		text = cutRunes(text, max(c.lim.maxChars-utf8.RuneCountInString(notice), 0)) + notice
	}
	return untrusted.Wrap("mcp:"+c.name+":"+tool, text)
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

func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/untrusted"
)

// ResourceReadToolName is the tool that follows a resource_link.
const ResourceReadToolName = "mcp_resource_read"

// Paging of mcp_resource_read, in bytes of the rendered text, as artifact_read.
const (
	defaultResourceReadLimit = 64 << 10
	maxResourceReadLimit     = 256 << 10
	// maxLinks bounds the resource links remembered per server.
	maxLinks = 1000
)

// linkSet remembers the resource URIs a server linked to in its results:
// mcp_resource_read follows those and nothing else, so the model reads what
// a server pointed at, not whatever URI it can think of.
type linkSet struct {
	mu   sync.Mutex
	uris []string
}

func (l *linkSet) add(uri string) {
	if uri == "" || len(uri) > 4096 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if slices.Contains(l.uris, uri) {
		return
	}
	if len(l.uris) == maxLinks {
		l.uris = l.uris[1:]
	}
	l.uris = append(l.uris, uri)
}

func (l *linkSet) has(uri string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.uris, uri)
}

// ResourceReadTool reads, page by page, a resource an MCP server linked to,
// through that server's resources/read.
type ResourceReadTool struct {
	clients map[string]*Client
	names   []string
}

// ResourceReader returns the mcp_resource_read tool over the servers that
// advertise resources; nil when none does (or s is nil).
func (s *Set) ResourceReader() *ResourceReadTool {
	if s == nil {
		return nil
	}
	return NewResourceReader(s.clients)
}

// NewResourceReader is ResourceReader over any discovered clients.
func NewResourceReader(clients []*Client) *ResourceReadTool {
	t := &ResourceReadTool{clients: map[string]*Client{}}
	for _, c := range clients {
		if c.HasCapability(capabilityResources) {
			t.clients[c.Name()] = c
			t.names = append(t.names, c.Name())
		}
	}
	if len(t.names) == 0 {
		return nil
	}
	slices.Sort(t.names)
	return t
}

// Name returns "mcp_resource_read".
func (t *ResourceReadTool) Name() string { return ResourceReadToolName }

// Description tells the model what the tool does.
func (t *ResourceReadTool) Description() string {
	return "Read a resource an MCP server linked to in a tool result (a `[resource link: <uri> …]` line; " +
		"the server is the one in the result's source, mcp:<server>:<tool>). Returns up to `limit` bytes " +
		"from byte `offset`; when the output says TRUNCATED, call again with the next offset."
}

// Schema returns the JSON schema of the arguments.
func (t *ResourceReadTool) Schema() json.RawMessage {
	names, _ := json.Marshal(t.names)
	return json.RawMessage(`{"type":"object","properties":{` +
		`"server":{"type":"string","enum":` + string(names) + `,"description":"the MCP server that returned the link"},` +
		`"uri":{"type":"string","description":"the link's URI, exactly as shown"},` +
		`"offset":{"type":"integer","minimum":0,"description":"first byte to read (default 0)"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":262144,"description":"bytes to read (default 65536)"}` +
		`},"required":["server","uri"],"additionalProperties":false}`)
}

type resourceArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func parseResourceArgs(raw json.RawMessage) (resourceArgs, error) {
	var a resourceArgs
	if err := json.Unmarshal(bytes.TrimSpace(raw), &a); err != nil {
		return a, fmt.Errorf("invalid arguments: %v", err)
	}
	switch {
	case a.Server == "" || a.URI == "":
		return a, errors.New("server and uri are required")
	case a.Offset < 0:
		return a, fmt.Errorf("offset %d must be >= 0", a.Offset)
	case a.Limit < 0:
		return a, fmt.Errorf("limit %d must be >= 0", a.Limit)
	case a.Limit == 0:
		a.Limit = defaultResourceReadLimit
	case a.Limit > maxResourceReadLimit:
		a.Limit = maxResourceReadLimit
	}
	return a, nil
}

// Call reads the resource and returns one page, fenced as untrusted data
// from that server, with secrets odek knows redacted.
func (t *ResourceReadTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := parseResourceArgs(args)
	if err != nil {
		return "", err
	}
	c, ok := t.clients[a.Server]
	if !ok {
		return "", fmt.Errorf("unknown server %q (servers with resources: %s)", untrusted.OneLine(a.Server, 64), strings.Join(t.names, ", "))
	}
	if !c.links.has(a.URI) {
		return "", fmt.Errorf("server %q has not linked to %q in this run; only resource links from its results can be read", a.Server, untrusted.OneLine(a.URI, 256))
	}
	text, err := c.ReadResource(ctx, a.URI)
	if err != nil {
		return "", err
	}
	text = redact.String(text)
	if a.Offset > len(text) || (a.Offset == len(text) && len(text) > 0) {
		return "", fmt.Errorf("offset %d is past the end (size %d)", a.Offset, len(text))
	}
	end := min(a.Offset+a.Limit, len(text))
	for end < len(text) && end > a.Offset && !utf8.RuneStart(text[end]) {
		end-- // end the page on a rune boundary
	}
	header := fmt.Sprintf("resource %s from %s — bytes %d..%d of %d", untrusted.OneLine(a.URI, 256), a.Server, a.Offset, end, len(text))
	if end < len(text) {
		header += " — TRUNCATED, call again with offset to continue"
	}
	return header + "\n" + untrusted.Wrap("mcp:"+a.Server+":"+ResourceReadToolName, strings.ToValidUTF8(text[a.Offset:end], "\uFFFD")), nil
}

// resourceContents is one item of a resources/read result.
type resourceContents struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     *string `json:"blob"`
}

// ReadResource reads uri through resources/read and renders its contents
// as text: text contents as they are, each blob as a one-line summary.
func (c *Client) ReadResource(ctx context.Context, uri string) (string, error) {
	op := "resources/read " + untrusted.OneLine(uri, 128)
	if !c.opened.Load() {
		return "", newError(c.name, op, classSetup, errNotDiscovered)
	}
	raw, err := c.request(ctx, op, methodResourcesRead, c.withMeta(map[string]any{"uri": uri}))
	if err != nil {
		return "", err
	}
	return c.renderResource(op, raw)
}

func (c *Client) renderResource(op string, raw json.RawMessage) (string, error) {
	var res struct {
		ResultType string             `json:"resultType"`
		Contents   []resourceContents `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", newError(c.name, op, classMCP, fmt.Errorf("malformed resources/read result: %w", err))
	}
	switch res.ResultType {
	case "", resultTypeComplete:
	case resultTypeInputRequired:
		return "", newError(c.name, op, classMCP, &inputDeclinedError{Server: c.name, Method: methodResourcesRead,
			Reason: "reading this resource needs input, and odek answers requests for input only in tool calls"})
	default:
		return "", newError(c.name, op, classMCP, fmt.Errorf("unknown resultType %q", clip(res.ResultType, errUnknownResultTypeMessageSize)))
	}
	var parts []string
	for _, it := range res.Contents {
		switch {
		case it.Text != nil:
			parts = append(parts, *it.Text)
		case it.Blob != nil:
			parts = append(parts, fmt.Sprintf("[binary resource %s (%s), %d bytes base64 omitted]",
				untrusted.OneLine(it.URI, 256), untrusted.OneLine(it.MimeType, 64), len(*it.Blob)))
		}
	}
	return strings.Join(parts, "\n"), nil
}

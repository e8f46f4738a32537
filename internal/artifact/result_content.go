package artifact

import (
	"fmt"

	"github.com/odek-run/odek/internal/untrusted"
)

// Content is one MCP content item of a tools/call result. Only text reaches
// the model; every other kind becomes one metadata line, so binary payloads
// never do. Unknown fields and kinds are tolerated (the additive rule).
type Content struct {
	Type     string           `json:"type"`
	Text     string           `json:"text"`
	MimeType string           `json:"mimeType"`
	Data     string           `json:"data"`
	URI      string           `json:"uri"`
	Name     string           `json:"name"`
	Resource *EmbeddedContent `json:"resource"`
}

// EmbeddedContent is the resource of an embedded-resource content item.
type EmbeddedContent struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Blob     string `json:"blob"`
}

// maxContentField caps server-chosen strings (URIs, names, types) in the
// one-line summaries of non-text content.
const maxContentField = 256

// line is the text of a text item, or the one-line summary of any other kind.
func (b *Content) line() string {
	switch b.Type {
	case "text":
		return b.Text
	case "image", "audio":
		return fmt.Sprintf("[%s content: %s, %d bytes base64 omitted]", b.Type, contentField(b.MimeType, "unknown type"), len(b.Data))
	case "resource_link":
		return fmt.Sprintf("[resource link: %s (%s) %s]", contentField(b.URI, "no uri"), contentField(b.MimeType, "unknown type"), contentField(b.Name, ""))
	case "resource":
		if b.Resource == nil {
			return "[embedded resource: empty]"
		}
		r := b.Resource
		size := fmt.Sprintf("%d chars of text omitted", len(r.Text))
		if r.Blob != "" {
			size = fmt.Sprintf("%d bytes base64 omitted", len(r.Blob))
		}
		return fmt.Sprintf("[embedded resource: %s (%s), %s]", contentField(r.URI, "no uri"), contentField(r.MimeType, "unknown type"), size)
	}
	return fmt.Sprintf("[%s content omitted]", contentField(b.Type, "untyped"))
}

// contentField one-lines and caps a server-supplied string for a summary line.
func contentField(s, empty string) string {
	if s == "" {
		return empty
	}
	return untrusted.OneLine(s, maxContentField)
}

// contentLines renders every item: text items as they are, others as one line.
func contentLines(items []Content) []string {
	out := make([]string, 0, len(items))
	for i := range items {
		out = append(out, items[i].line())
	}
	return out
}

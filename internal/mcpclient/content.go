package mcpclient

import (
	"fmt"

	"github.com/odek-run/odek/internal/untrusted"
)

// contentBlock is one MCP content item. Only text reaches the model; every
// other kind becomes one metadata line so binary payloads never do.
type contentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	Resource *struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	} `json:"resource"`
}

// maxMetaField caps server-chosen strings (URIs, names, types) in metadata lines.
const maxMetaField = 256

func (b *contentBlock) render() string {
	switch b.Type {
	case "text":
		return b.Text
	case "image", "audio":
		return fmt.Sprintf("[%s content: %s, %d bytes base64 omitted]", b.Type, field(b.MimeType, "unknown type"), len(b.Data))
	case "resource_link":
		return fmt.Sprintf("[resource link: %s (%s) %s]", field(b.URI, "no uri"), field(b.MimeType, "unknown type"), field(b.Name, ""))
	case "resource":
		if b.Resource == nil {
			return "[embedded resource: empty]"
		}
		r := b.Resource
		size := fmt.Sprintf("%d chars of text omitted", len(r.Text))
		if r.Blob != "" {
			size = fmt.Sprintf("%d bytes base64 omitted", len(r.Blob))
		}
		return fmt.Sprintf("[embedded resource: %s (%s), %s]", field(r.URI, "no uri"), field(r.MimeType, "unknown type"), size)
	}
	return fmt.Sprintf("[%s content omitted]", field(b.Type, "untyped"))
}

// field one-lines and caps a server-supplied string for a metadata line.
func field(s, empty string) string {
	if s == "" {
		return empty
	}
	return untrusted.OneLine(s, maxMetaField)
}

// clip caps s at n runes, marking the cut with "…".
func clip(s string, n int) string {
	c := cutRunes(s, n)
	if len(c) < len(s) {
		return c + "…"
	}
	return c
}

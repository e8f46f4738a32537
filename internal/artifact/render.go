package artifact

import (
	"fmt"
	"strings"

	"github.com/odek-run/odek/internal/untrusted"
)

// TruncationNotice is the exact notice appended to a result cut at limit
// runes; observed is the rune count of the whole render.
func TruncationNotice(server, tool string, observed, limit int) string {
	return fmt.Sprintf("\n[odek: result truncated — server %q tool %q produced %d chars, exceeding the configured max_result_chars=%d; the full result is available via the retained artifact references, if any]",
		server, tool, observed, limit)
}

// FormatMetadataLine renders the one line the model sees for an artifact:
// `- artifact "<id>" (<media_type>[, N bytes][, sha256 <12 hex>…])[: <summary>]`.
// A negative size or empty hash is left out, as is an empty summary. Callers
// that save a result themselves use it so their line matches Process's.
func FormatMetadataLine(id, mediaType string, size int64, sha256hex, summary string) string {
	var b strings.Builder
	b.WriteString(metaPrefix)
	b.WriteString(untrusted.OneLine(id, MaxFieldRunes))
	b.WriteString(`" (`)
	b.WriteString(untrusted.OneLine(mediaType, MaxFieldRunes))
	if size >= 0 {
		fmt.Fprintf(&b, ", %d bytes", size)
	}
	if len(sha256hex) >= 12 {
		b.WriteString(", sha256 " + untrusted.OneLine(sha256hex[:12], 12) + "…")
	}
	b.WriteString(")")
	if summary != "" {
		b.WriteString(": " + untrusted.OneLine(summary, MaxFieldRunes))
	}
	return b.String()
}

func metadataLine(v *Verified) string {
	return FormatMetadataLine(v.Ref.ID, v.Ref.MediaType, v.Size, v.SHA256, v.Ref.Summary)
}

// layout is a render in three parts: envelope text, metadata lines, and the
// text of non-envelope items that followed it.
type layout struct {
	head string
	meta string
	tail string
}

func (l layout) render() string {
	return joinNonEmpty(l.head, l.meta, l.tail)
}

func joinNonEmpty(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n")
}

// Package untrusted marks external content (MCP output, file contents, sub-agent
// summaries, artifact pages) as data before it enters the model's context.
//
// The wrapper is `<untrusted_content_<nonce> source="…">\n…\n</untrusted_content_<nonce>>`
// with a fresh 16-hex nonce per wrap, so content cannot close the fence it sits in
// without guessing the nonce. Occurrences of the marker word inside the body are
// neutralised and the source attribute cannot break out of its quotes.
package untrusted

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// marker is the word that opens and closes a fence; bodies may not contain it.
const marker = "untrusted_content"

// neutral replaces the marker in bodies: the underscore becomes U+02CD, so the
// text stays readable but can no longer form a fence tag.
const neutral = "untrustedˍcontent"

// NewNonce returns 16 lowercase hex characters from crypto/rand.
func NewNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// Wrap fences body as untrusted data from source, with a fresh nonce.
func Wrap(source, body string) string {
	return WrapNonce(NewNonce(), source, body)
}

var sourceCleaner = strings.NewReplacer(`"`, "'", "<", "‹", ">", "›", "\r", " ", "\n", " ")

// WrapNonce is Wrap with a caller-chosen nonce (the plan reuses one per version).
func WrapNonce(nonce, source, body string) string {
	if strings.Contains(body, marker) {
		body = strings.ReplaceAll(body, marker, neutral)
	}
	source = sourceCleaner.Replace(source)
	var b strings.Builder
	b.Grow(len(body) + 2*len(marker) + len(source) + 64)
	b.WriteString("<" + marker + "_" + nonce + ` source="` + source + "\">\n")
	b.WriteString(body)
	b.WriteString("\n</" + marker + "_" + nonce + ">")
	return b.String()
}

// Unfence returns s with every fence tag Wrap writes taken out, the text
// inside kept: what a person reads of an error on one line, and what two
// results are compared by (each wrap has a fresh nonce, so two wraps of one
// body differ only in their tags). A fence's closing tag and the newline
// before it go; so do an opening tag and the newline after it.
func Unfence(s string) string {
	if !strings.Contains(s, marker+"_") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, "<"+marker+"_")
		closing := false
		if j := strings.Index(s, "</"+marker+"_"); j >= 0 && (i < 0 || j < i) {
			i, closing = j, true
		}
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := tagEnd(s[i:], closing)
		if end < 0 { // not a tag Wrap writes: keep it as text
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		head := s[:i]
		if closing {
			head = strings.TrimSuffix(head, "\n")
		}
		b.WriteString(head)
		s = s[i+end:]
		if !closing {
			s = strings.TrimPrefix(s, "\n")
		}
	}
}

// tagEnd is the length of the fence tag t starts with (`<untrusted_content_
// <16 hex> source="…">` or `</untrusted_content_<16 hex>>`), or -1.
func tagEnd(t string, closing bool) int {
	n := len("<" + marker + "_")
	if closing {
		n++
	}
	if len(t) < n+16 || !isHex(t[n:n+16]) {
		return -1
	}
	n += 16
	if closing {
		if strings.HasPrefix(t[n:], ">") {
			return n + 1
		}
		return -1
	}
	if !strings.HasPrefix(t[n:], ` source="`) {
		return -1
	}
	n += len(` source="`)
	q := strings.Index(t[n:], `">`)
	if q < 0 || strings.ContainsAny(t[n:n+q], "\"<>\n") {
		return -1
	}
	return n + q + 2
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

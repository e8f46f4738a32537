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

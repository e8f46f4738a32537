package llm

import "net/http"

// DefaultTransport is the transport a Client uses when Options.HTTPClient
// has none (a clone of http.DefaultTransport whose TLS handshake the
// connect timeout bounds), for callers that wrap it (odek run --record).
func DefaultTransport() http.RoundTripper { return defaultTransport() }

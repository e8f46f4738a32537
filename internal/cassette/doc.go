// Package cassette records a run's exchanges with the world outside the
// workspace — the LLM endpoint, each MCP server, the shell tool — and plays
// them back, so a workflow recorded once replays offline and exactly.
//
// A cassette is a directory (0700) of JSON-lines files (0600), one per
// stream, beside cassette.json, which names the format (odek.cassette/v1)
// and the roots (working directory, odek home, home) the recording ran
// under. Streams: llm.jsonl (and llm-<name>.jsonl), mcp-<server>.jsonl,
// tool-<name>.jsonl. docs/TESTING.md describes the format and
// docs/schema/cassette-*.schema.json publish it.
//
// Everything written passes the caller's redactors first (scrub.go): every
// string, object keys included, and by its key the value of a JSON member
// whose name looks secret (an elicitation answer's "password"). Request
// headers are never written, so the API key never reaches a cassette.
//
// Playback matches requests in order by a normalised form (normalize.go):
// volatile values (JSON-RPC ids, untrusted-content nonces, the roots,
// client versions) are left out of the comparison. The first request that
// departs from the cassette is a *DepartureError naming the stream, the
// request, the field and how the values differ: lengths, hashes and a
// redacted excerpt with secret-shaped runs hidden, never a raw value
// (departure.go).
//
// The package is a leaf: it imports no other odek package, and takes the
// redactor as a function.
package cassette

// Package mcpclient connects odek to MCP servers (stdio child processes or
// Streamable HTTP endpoints) and exposes their tools to the agent loop.
//
// Layers, bottom up: framing (framing.go, sse.go) turns bytes into classified
// JSON-RPC messages; a transport (stdio.go, http.go) moves whole messages; a
// conn (conn.go) multiplexes requests by id; the Client (client.go,
// discover.go, call.go) speaks MCP; ToolAdapter plugs a tool into loop.Tool;
// Start (servers.go) brings a run's servers up. Two jobs live elsewhere:
// approvals in internal/approval (behind the Gate interface Start asks), and
// rendering results for the model in internal/artifact (RenderResult).
//
// Invariants, because odek runs unattended and servers may be hostile:
//   - Memory is bounded: one inbound message is at most max_response_bytes
//     (≤ 64 MiB); an over-limit line is abandoned after limit+1 bytes, the
//     connection closed and every pending call failed. Notifications are
//     dropped as they are read; no inbound queue grows with server output.
//   - Nothing hangs: every request has a deadline (caller's or
//     timeout_seconds, which bounds a tool call whole: its input_required
//     rounds together, and progress never extends it); a timed-out id is
//     forgotten and the server told with notifications/cancelled, and the
//     connection stays usable. Close waits at most a few seconds, then kills
//     the server's process group.
//   - Exactly one reader and one writer goroutine per connection; Close
//     leaves no goroutine or process behind.
//   - Secrets stay home: a child sees only an allowlisted environment plus its
//     configured env, minus any secret-looking name; URLs with userinfo are
//     refused.
//   - The model sees only bounded, wrapped text: every result goes through
//     artifact.RenderResult (text content, one metadata line per non-text
//     block, validated artifact refs, max_result_chars, untrusted.Wrap).
//
// Protocol choices: odek is dual-era (MCP 2026-07-28, "Versioning and
// Compatibility"; open.go). It probes with server/discover; a DiscoverResult
// naming 2026-07-28 or a modern error (-32020/-32021/-32022) keeps it modern
// — every request carries _meta, HTTP POSTs carry Mcp-Method/Mcp-Name and no
// session, and initialize is never sent. Any other answer (an error of any
// code, an HTTP error status without a modern body, a result that is no
// DiscoverResult) or silence within the probe timeout falls back to
// initialize on the same connection (2025-03-26 unless the server listed only another 2025
// revision), then notifications/initialized once the result arrived.
// Results honour resultType (input_required is answered from the
// configured elicitation values or declined), structuredContent is checked
// against the tool's outputSchema (outputschema.go, the one file that
// knows the JSON Schema library) and rendered as JSON; progress is
// reported and restarts the optional idle_timeout_seconds deadline, never
// timeout_seconds. The elicitation capability is declared (in initialize
// and in _meta alike) exactly when the configured values can answer. ping
// is answered with {}, elicitation/create from the configured values (else
// declined), every other server request with -32601.
//
// Resilience (restart.go, tasks.go, oauth.go, listen.go): a stdio server
// that exited, or an HTTP session the server forgot, is opened again for
// the next call, at most restart_limit times a run, after the Gate's
// Rechecker and with its tools compared to the approved ones; a call that
// was running is replayed only for a tool the operator trusts to be
// read-only or idempotent. Start skips a server with required: false that
// fails to start. A call answered with a task (Tasks extension) is polled
// within its own deadline and cancelled with tasks/cancel when that ends
// first. Machine login fetches OAuth client-credentials tokens, sending
// the credential to the token endpoint only. A 2025 HTTP server's
// standalone GET stream is read like a call's.
//
// The contract's reference server is testdata/artifact_server.go (build tag
// ignore; contract_test.go builds it with `go build` into a temp dir).
package mcpclient

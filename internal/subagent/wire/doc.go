// Package wire is the protocol a parent odek and its `odek subagent`
// children share (docs/SUBAGENTS.md): the task file the parent writes, the
// typed stream lines and the result the child prints, the API-key handover
// on file descriptor 3, and the environment of the contract. Both ends
// import it, so a change to the protocol is a change to this package only.
//
// Invariants:
//   - Everything here that reads bytes from the other end is strict and
//     bounded: ParseTask refuses unknown fields, duplicate keys, unknown
//     enum values, oversized fields, NUL bytes and invalid UTF-8, naming
//     the field; ReadStream reads a child's stdout under hard caps and
//     reports a broken one as a *FloodError.
//   - A result is bounded field by field (Result.Bound) with the same caps
//     the child fills it under (FromHistory).
//   - Additive rule: fields a reader does not know are ignored in results
//     and stream lines, never in the task file.
package wire

// Protocol is the task-file protocol this package writes. Protocol 2 adds the
// typed --stream lines; protocol 1 (or none) gets one JSON result object.
const Protocol = 2

// MaxSummaryRunes caps a child's summary; longer ones end with "…".
const MaxSummaryRunes = 2048

// Caps on the child's stdout (docs/SUBAGENTS.md): a line longer than maxLineBytes,
// more than maxLines lines or more than maxStreamBytes in total is a flood.
const (
	maxLineBytes   = 10 << 20
	maxLines       = 100000
	maxStreamBytes = 100 << 20
)

// Environment variables of the parent-child contract.
const (
	// EnvDepth carries the child's delegation depth (the parent's + 1).
	EnvDepth = "ODEK_SUBAGENT_DEPTH"
	// EnvAPIKeyFD names the file descriptor the API key can be read from.
	EnvAPIKeyFD = "ODEK_API_KEY_FD"
	// KeyFD is the only descriptor EnvAPIKeyFD may name.
	KeyFD = 3
)

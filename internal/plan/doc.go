// Package plan is the built-in `plan` tool (docs/PLANNING.md): a small structured
// plan the model keeps for multi-step work, shown back to it as a protected
// system message that survives context trimming and `odek continue`.
//
// Invariants:
//   - Calls serialize on one mutex; a rejected call leaves the state exactly
//     as it was (updates are validated as a whole before any applies).
//   - version bumps on every effective mutation and only then; each bump
//     reports one Change, which carries counts and the version, never titles
//     or notes.
//   - The rendered message is the header, outside the untrusted wrapper, and
//     the step lines inside it (source "plan", one nonce per version). Titles
//     and notes are one-lined, so a step can never forge a line of its own.
//   - The transcript is the only persistence: Restore parses a rendered
//     message back; a message that does not parse, or that omitted or cut
//     steps, is refused (the caller removes it).
//
// The package imports no other odek package but untrusted: the wiring
// connects Options.OnChange to the event stream and the loop to Message.
package plan

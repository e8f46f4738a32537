// Package agentsmd finds and renders project instructions: the AGENTS.md
// files Codex, Cursor, Copilot, goose and opencode read, which say how to
// build and test a project and its conventions.
//
// Discover reads the operator's own file ($ODEK_HOME/AGENTS.md) and then
// the repository's, from the repository root (reporoot.Find) down to the
// working directory, so the more specific file comes later. Render turns
// them into one block for the system prompt, after odek's own rules.
//
// Invariants:
//   - A repository is untrusted (a clone may carry anything): its files are
//     context for the model, never configuration. Nothing here is parsed
//     for settings, so no text in them can change a budget, the policy, the
//     tools or the trust of a run; the rendered block says so to the model
//     as well.
//   - What is read is bounded: the repository's files share MaxBytes, the
//     operator's file has a cap of its own, a cut says so in the text the
//     model sees, and a file over the cap is never read past it.
//   - A repository file is read only when it resolves inside the
//     repository: a symlink to ~/.aws/credentials is skipped with a
//     warning, not sent to the model. FIFOs and devices are never opened
//     for reading.
//   - Each file is named with the SHA-256 of the bytes the model was given,
//     so a report, an event or a cassette can say exactly what it saw.
//   - Render is a pure function of the files: the same files give the same
//     bytes, run after run, and the fence's nonce is derived from their
//     text, so the text cannot close its own fence.
package agentsmd

// Package session persists conversations so that `odek continue` can pick one
// up later: one JSON file per session, $ODEK_HOME/sessions/<id>.json, plus an
// index.json that lets `odek session list` avoid reading every transcript.
//
// Invariants:
//   - An id is validated (ValidID) before it is ever joined to a path: odek's
//     own are YYYYMMDD-<32 hex>, random; a chosen one (--session-id) is 1 to
//     128 characters of [A-Za-z0-9._-]. A file whose embedded id differs
//     from its name is refused on load.
//   - Create and Fork never replace a session: the file is linked into
//     place only where none is. A fork is a verified copy, signed afresh
//     under its own id, that names its parent and keeps its taint.
//   - Every write is atomic (O_EXCL temp file, fsync, rename, directory fsync)
//     and 0600, so a crash at any moment leaves either the previous file or the
//     new one, never a torn one. Loads refuse files over MaxBytes.
//   - Secrets are redacted at save: every message not yet redacted (those at
//     or after redact_boundary, and any the caller changed) goes through the
//     redactor before it is written; redaction is never repeated for messages
//     already stored, which keeps a save of a long history cheap.
//   - A history whose file would pass MaxBytes loses its oldest message groups
//     (an assistant message with tool calls and its tool messages go together;
//     system messages stay) and gains a marker message saying so.
//   - The index is a cache: List checks it against the directory and re-reads
//     any session it is missing or stale about, so a crash or a concurrent
//     writer can make it wrong only until the next List.
//   - Every file is signed: "mac" is HMAC-SHA256, under the per-install key
//     (KeyFile, created 0600 on first use and never written into a session),
//     of the file without it. Load checks it against what it decoded, so an
//     edit of any field odek reads is a *TamperedError; a file without a mac
//     (from before signing) loads unverified and tainted. Taint is sticky.
//   - External refs are validated, de-duplicated and stored; they are never
//     dereferenced.
package session

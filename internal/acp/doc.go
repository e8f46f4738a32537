// Package acp is odek's side of the Agent Client Protocol (ACP v1): an
// agent over a reader and a writer (an editor's or a parent process's
// pipes) that opens sessions, runs a turn of odek's loop per prompt, shows
// the turn as session updates and lets the client answer the policy's
// prompts.
//
// Invariants:
//   - The loop is reached only through Runner and Session (runner.go): the
//     run side assembles a run, this package speaks the protocol.
//   - Updates go out in order from one writer (outbox); a permission
//     request, an elicitation, a load's reply and a prompt's response come
//     after every update put before them. Nothing the loop or the emitter
//     calls blocks on the client.
//   - One turn per session at a time: a second prompt is an error, the
//     first goes on. session/cancel ends the turn as an interrupt does and
//     the prompt answers "cancelled".
//   - The client answers only what the policy would ask a terminal: a call
//     the configuration denies, or the sandbox refuses, never reaches it.
//   - When the client's input ends, every turn is cancelled, every session
//     closed, and Serve returns: no goroutine of the agent outlives it.
package acp

// Package hooks runs lifecycle hooks in Claude Code's format: the "hooks"
// key of odek's config maps an event name to matcher groups, each with the
// handlers (a shell command, or an HTTP POST) to run when the event fires
// and its matcher matches. A handler reads the event as JSON (on stdin, or
// as the POST body) and answers with its exit code and, optionally, a JSON
// object on stdout; docs/HOOKS.md is the reference.
//
// Invariants:
//   - A hook can only tighten: its deny blocks a call, its allow never
//     lets one through that odek's policy or sandbox refuses (the caller
//     asks its Gate after the hooks), and updatedInput is what the policy
//     then decides on.
//   - Everything a hook prints is untrusted bytes: read up to a cap,
//     decoded strictly, made valid UTF-8 without controls, capped again
//     before it reaches the model or the operator's terminal.
//   - Each handler runs under its own timeout in its own process group,
//     which is killed when the timeout or the run's context ends; project
//     hooks run under the sandbox policy they are given.
//   - Nothing here prints: what the operator should see goes to
//     Options.Warn, what consumers should see to Options.Events.
//   - A Runner with no hook for an event costs one map lookup there; the
//     loop holds no Runner at all when no hook is configured.
package hooks

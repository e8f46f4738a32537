// Package policy decides, for each tool call, whether it runs: allow, deny,
// or ask the operator. It applies the `dangerous` settings of docs/TOOLS.md
// to the risk a call was assessed with.
//
// Invariants:
//   - Fail closed: a class the settings do not name is denied; blocked is
//     always denied; a prompt without a terminal never waits — it resolves
//     by dangerous.non_interactive (default deny).
//   - The denylist beats everything but blocked; an exact allowlist entry
//     beats the class decisions. A call with several classes gets the
//     strictest decision of any of them.
//   - Unassessed calls (MCP tools, approved at registration) run unless
//     the denylist names the tool: naming it is the operator's opt-in to
//     per-call policy for it.
package policy

// Package approval decides which MCP servers odek may start and which of
// their tools the model may see: the Gate that mcpclient.Start consults.
//
// Two gates, both failing closed when nobody can be asked:
//   - Spawn: a server defined in a project file (./odek.json) is started only
//     with a grant keyed on everything it will execute with (SpawnKey).
//   - Tools: every tool of every server needs a grant keyed on the server's
//     definition and the tool's name, description and schema (ToolKey).
//
// Grant sources, in order: ApproveAll (ODEK_APPROVE_MCP=1; nothing stored),
// the operator's auto_approve on a global server, a stored key, and the
// operator's answer through a Confirmer (stored). Before any grant, each
// tool is screened: an oversized or injection-tainted schema skips the tool,
// a tainted description is replaced by mcpclient.DescriptionPlaceholder. No
// grant waives the screen.
//
// The package asks through the small Confirmer interface and never touches a
// terminal itself; Prompter is the terminal implementation the CLI uses.
package approval

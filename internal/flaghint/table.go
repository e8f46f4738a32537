package flaghint

// The tools whose spellings users bring.
const (
	claude = "Claude Code"
	codex  = "Codex"
	goose  = "goose"
	gemini = "Gemini CLI"
	aider  = "aider"
)

// flags are other tools' flags odek spells otherwise. Where odek spells a
// flag the same (--model, --mcp-config, --output-schema, --full-auto,
// --sandbox, -c key=value) there is no entry: the flag works.
var flags = []Hint{
	{Theirs: "--output-format", Tools: []string{claude, gemini}, Ours: "--output",
		Note: "text (the answer alone), json (one run report) or stream-json (events as they happen, then the report)"},
	{Theirs: "--max-turns", Tools: []string{claude, goose}, Ours: "--max-iter"},
	{Theirs: "-p", Tools: []string{claude, gemini}, Ours: `odek run "<task>"`,
		Note: "odek run never asks and prints the final answer alone, so the task is just its argument (or - for stdin)"},
	{Theirs: "--print", Tools: []string{claude}, Ours: `odek run "<task>"`,
		Note: "odek run never asks and prints the final answer alone, so the task is just its argument (or - for stdin)"},
	{Theirs: "--prompt", Tools: []string{gemini}, Ours: `odek run "<task>"`, Note: "the task is odek run's argument"},
	{Theirs: "--json-schema", Tools: []string{claude}, Ours: "--output-schema FILE",
		Note: "the schema comes from a file, and stdout is then the matching JSON value alone"},
	{Theirs: "--dangerously-skip-permissions", Tools: []string{claude}, Ours: "--full-auto",
		Note: "it allows every risk class the sandbox contains, without prompts; to allow more, set the dangerous settings " +
			`(-c 'dangerous={"action":"allow"}', docs/TOOLS.md) and, past the sandbox, --sandbox off`},
	{Theirs: "--dangerously-bypass-approvals-and-sandbox", Tools: []string{codex}, Ours: "--full-auto",
		Note: "it keeps the sandbox; without one, add --sandbox off and allow the classes you mean in the dangerous settings (docs/TOOLS.md)"},
	{Theirs: "--yolo", Tools: []string{codex, gemini}, Ours: "--full-auto",
		Note: "it allows what the sandbox contains, without prompts; the dangerous settings (docs/TOOLS.md) allow more"},
	{Theirs: "--yes-always", Tools: []string{aider}, Ours: "--full-auto"},
	{Theirs: "--permission-mode", Tools: []string{claude}, Ours: "--full-auto",
		Note: `or the dangerous settings, class by class: -c 'dangerous={"classes":{"code_execution":"allow"}}' (docs/TOOLS.md)`},
	{Theirs: "--approval-mode", Tools: []string{gemini}, Ours: "--full-auto",
		Note: "or the dangerous settings, class by class (docs/TOOLS.md)"},
	{Theirs: "--ask-for-approval", Tools: []string{codex}, Ours: `-c 'dangerous={"action":"deny"}'`,
		Note: "what is asked and what is allowed are the dangerous settings (docs/TOOLS.md); --full-auto asks nothing"},
	{Theirs: "-a", Tools: []string{codex}, Ours: `-c 'dangerous={"action":"deny"}'`,
		Note: "what is asked and what is allowed are the dangerous settings (docs/TOOLS.md); --full-auto asks nothing"},
	{Theirs: "-y", Tools: []string{gemini}, Ours: "--full-auto"},
	{Theirs: "-s", Tools: []string{codex}, Ours: "--sandbox", Note: "auto, workspace-write, read-only or off"},
	{Theirs: "-r", Tools: []string{claude, goose}, Ours: "odek continue [id]"},
	{Theirs: "-t", Tools: []string{goose}, Ours: `odek run "<task>"`, Note: "the task is odek run's argument"},
	{Theirs: "--system-prompt", Tools: []string{claude}, Ours: "--system"},
	{Theirs: "--append-system-prompt", Tools: []string{claude}, Ours: "--append-system"},
	{Theirs: "--allowedTools", Tools: []string{claude}, Ours: "--tool", Note: "repeatable; MCP tools are named server__tool"},
	{Theirs: "--allowed-tools", Tools: []string{claude}, Ours: "--tool", Note: "repeatable; MCP tools are named server__tool"},
	{Theirs: "--disallowedTools", Tools: []string{claude}, Ours: "--no-tool", Note: "repeatable"},
	{Theirs: "--disallowed-tools", Tools: []string{claude}, Ours: "--no-tool", Note: "repeatable"},
	{Theirs: "--resume", Tools: []string{claude, goose}, Ours: "odek continue [id]",
		Note: "a run keeps a session with --session"},
	{Theirs: "--continue", Tools: []string{claude}, Ours: "odek continue",
		Note: "it carries on this directory's newest session"},
	{Theirs: "--cd", Tools: []string{codex}, Ours: "--cwd (-C)"},
	{Theirs: "--json", Tools: []string{codex}, Ours: "--output stream-json",
		Note: "or --events-jsonl FILE for the events beside the plain answer"},
	{Theirs: "--output-last-message", Tools: []string{codex}, Ours: `odek run "<task>" > FILE`,
		Note: "stdout is the final answer alone"},
	{Theirs: "--skip-git-repo-check", Tools: []string{codex}, Note: "odek runs in any directory; leave it out"},
	{Theirs: "--add-dir", Tools: []string{claude, codex}, Ours: "sandbox.writable_paths",
		Note: `in the global config, or -c 'sandbox.writable_paths=["/path"]'`},
	{Theirs: "--text", Tools: []string{goose}, Ours: `odek run "<task>"`, Note: "the task is odek run's argument"},
	{Theirs: "--instructions", Tools: []string{goose}, Ours: "--task-file FILE"},
	{Theirs: "--message", Tools: []string{aider}, Ours: `odek run "<task>"`, Note: "the task is odek run's argument"},
	{Theirs: "--with-extension", Tools: []string{goose}, Ours: "--mcp-config FILE",
		Note: `a JSON file {"mcp_servers": {...}} (docs/MCP.md)`},
	{Theirs: "--verbose", Tools: []string{claude, aider}, Ours: "--interaction-mode verbose",
		Note: "each step, the model's words between its tool calls and the start of each tool result on stderr; enhance shows the words alone"},
}

// commands are other tools' commands odek names otherwise.
var commands = []Hint{
	{Theirs: "exec", Tools: []string{codex}, Ours: "odek run"},
	{Theirs: "resume", Tools: []string{codex}, Ours: "odek continue"},
}

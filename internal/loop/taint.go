package loop

import "github.com/odek-run/odek/internal/llm"

// Taint: whether the model has seen untrusted content (docs/SUBAGENTS.md: a run
// that has forces its sub-agents untrusted). A tool result is untrusted
// unless its tool is a TrustedOutputTool; an error result counts like any
// other (an MCP server's error text is the server's). The taint only grows
// and is reported once, through Options.OnUntrusted.
//
// A result is ingested when its batch is appended to the history, after
// every call of the batch was decided: a delegate_tasks call made in the
// same response as a read_file was chosen before the model saw the file, so
// that file does not taint it; the next response's calls are tainted.

// ingest notes the results of one batch, just appended: one bool check per
// result once the run is tainted.
func (r *runner) ingest(calls []llm.ToolCall) {
	for _, c := range calls {
		if r.tainted {
			return
		}
		if !r.o.Tools.trustedOutput(c.Function.Name) {
			r.taint()
		}
	}
}

// ingestRestored taints a run that continues a history (a session) already
// holding a tool result that cannot be told to come from a trusted-output
// tool of this run: the model will see it again. It runs once per run.
func (r *runner) ingestRestored(msgs []llm.Message) {
	for _, m := range msgs {
		if m.Role == llm.RoleTool && !r.o.Tools.trustedOutput(m.Name) {
			r.taint()
			return
		}
	}
}

func (r *runner) taint() {
	r.tainted = true
	if r.o.OnUntrusted != nil {
		r.o.OnUntrusted()
	}
}

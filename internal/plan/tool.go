package plan

import "encoding/json"

// ToolName is the tool's name; it is reserved even when planning is off.
const ToolName = "plan"

// Name implements the loop's Tool interface.
func (p *Plan) Name() string { return ToolName }

// Description implements the loop's Tool interface.
func (p *Plan) Description() string {
	return "Keep a short structured plan for multi-step work; the current plan is shown to you " +
		"in a " + prefix + " …] message that survives context trimming. Verbs: " +
		"create {steps:[{id,title}]} starts (or replaces) the plan, all steps pending; " +
		"update {updates:[{id, status?, note?}]} changes steps (status pending, in_progress, done or blocked); " +
		"complete {step_id} marks one step done; get shows the plan."
}

var schema = json.RawMessage(`{"type":"object","properties":{` +
	`"verb":{"type":"string","enum":["create","update","complete","get"]},` +
	`"steps":{"type":"array","description":"create: the steps, in order","items":{"type":"object","properties":{` +
	`"id":{"type":"string","description":"short token, e.g. s1"},"title":{"type":"string"}},"required":["id","title"]}},` +
	`"updates":{"type":"array","description":"update: applied in order, all or nothing","items":{"type":"object","properties":{` +
	`"id":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","done","blocked"]},` +
	`"note":{"type":"string"}},"required":["id"]}},` +
	`"step_id":{"type":"string","description":"complete: the step that is done"}},` +
	`"required":["verb"]}`)

// Schema implements the loop's Tool interface.
func (p *Plan) Schema() json.RawMessage { return schema }

// TrustedOutput implements the loop's TrustedOutputTool: every result and
// error is the plan as the model wrote it, rendered by this package, and
// never bytes from a file, process, server or other agent, so reading it
// does not taint the run.
func (p *Plan) TrustedOutput() bool { return true }

package mcpclient

import (
	"context"
	"fmt"
)

// approvalHint tells the operator how to grant an approval non-interactively.
const approvalHint = "run odek interactively once, or set ODEK_APPROVE_MCP=1"

// approver decides the grants of one Start. Grant sources, in order:
// ODEK_APPROVE_MCP=1 (all, nothing stored), the caller-vouched auto_approve
// of a global server, a stored key, and finally the operator at a prompt,
// whose yes is stored. With no prompter anything else fails closed.
type approver struct {
	all    bool
	prompt *Prompter
	spawn  *ApprovalStore
	tools  *ApprovalStore
}

// approveSpawn grants a project-level server the right to be started.
func (a *approver) approveSpawn(ctx context.Context, spec ServerSpec) error {
	if !spec.Project || a.all || spec.trusted() {
		return nil
	}
	key := SpawnApprovalKey(spec.Dir, spec.Name, spec.Config)
	if a.spawn.Has(key) {
		return nil
	}
	if a.prompt == nil {
		return setupErr(spec.Name, fmt.Sprintf("project-level MCP server %q (%s) requires explicit approval; %s",
			spec.Name, commandLine(spec.Config), approvalHint), ErrNotApproved)
	}
	yes, err := a.prompt.ConfirmContext(ctx, spawnPrompt(spec))
	if err != nil {
		return setupErr(spec.Name, fmt.Sprintf("mcp approval: server %q: prompt failed: %v", spec.Name, err), err)
	}
	if !yes {
		return setupErr(spec.Name, fmt.Sprintf("mcp approval: server %q was not approved", spec.Name), ErrNotApproved)
	}
	if err := a.spawn.Grant(key); err != nil {
		return setupErr(spec.Name, fmt.Sprintf("mcp approval: server %q: %v", spec.Name, err), err)
	}
	return nil
}

// approveTools screens and grants the tools a server offers. Oversized or
// injection-tainted schemas are skipped before anyone is asked; a tainted
// description is replaced by DescriptionPlaceholder. A declined tool is
// skipped; a tool nobody can grant fails the whole start.
func (a *approver) approveTools(ctx context.Context, spec ServerSpec, defs []ToolDef) ([]ToolDef, []string, error) {
	var kept []ToolDef
	var warns []string
	for _, orig := range defs {
		t, warn, skip := screenTool(spec.Name, orig)
		warns = append(warns, warn...)
		if skip {
			continue
		}
		ok, err := a.grantTool(ctx, spec, orig, t)
		if err != nil {
			return nil, warns, err
		}
		if !ok {
			warns = append(warns, fmt.Sprintf("mcp server %q: tool %q was not approved; skipped", spec.Name, t.Name))
			continue
		}
		kept = append(kept, t)
	}
	return kept, warns, nil
}

// screenTool applies the checks no grant can waive: the schema size cap and
// the injection scan of schema strings and description.
func screenTool(server string, t ToolDef) (ToolDef, []string, bool) {
	if n := len(t.InputSchema); n > MaxSchemaBytes {
		return t, []string{fmt.Sprintf("mcp server %q: tool %q skipped: input schema is %d bytes, over the %d-byte limit",
			server, t.Name, n, MaxSchemaBytes)}, true
	}
	if hit := schemaInjectionHit(t.InputSchema); hit != "" {
		return t, []string{fmt.Sprintf("mcp server %q: tool %q skipped: its input schema contains the prompt-injection pattern %q",
			server, t.Name, hit)}, true
	}
	if hit := injectionHit(t.Description); hit != "" {
		// The key must still cover the real description, so only the copy
		// shown to people and the model is replaced.
		t.Description = DescriptionPlaceholder
		return t, []string{fmt.Sprintf("mcp server %q: tool %q: description withheld (prompt-injection pattern %q)",
			server, t.Name, hit)}, false
	}
	return t, nil, false
}

// grantTool reports whether a tool may be registered. The key covers the
// tool as the server sent it (orig); the prompt shows the screened copy,
// whose description may be the placeholder.
func (a *approver) grantTool(ctx context.Context, spec ServerSpec, orig, t ToolDef) (bool, error) {
	if a.all || spec.trusted() {
		return true, nil
	}
	key := ToolApprovalKey(spec.Dir, spec.Name, spec.Config, orig)
	if a.tools.Has(key) {
		return true, nil
	}
	if a.prompt == nil {
		return false, setupErr(spec.Name, fmt.Sprintf("MCP tool %q from server %q requires explicit approval; %s",
			t.Name, spec.Name, approvalHint), ErrNotApproved)
	}
	yes, err := a.prompt.ConfirmContext(ctx, toolPrompt(spec.Name, t, t.Description))
	if err != nil {
		return false, setupErr(spec.Name, fmt.Sprintf("mcp approval: tool %q from server %q: prompt failed: %v", t.Name, spec.Name, err), err)
	}
	if !yes {
		return false, nil
	}
	if err := a.tools.Grant(key); err != nil {
		return false, setupErr(spec.Name, fmt.Sprintf("mcp approval: tool %q from server %q: %v", t.Name, spec.Name, err), err)
	}
	return true, nil
}

package approval

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/odek-run/odek/internal/mcpclient"
)

// approvalHint tells the operator how to grant an approval non-interactively.
const approvalHint = "run odek interactively once, or set ODEK_APPROVE_MCP=1"

// Options configures a Gate.
type Options struct {
	// Home is $ODEK_HOME, holding the approvals files; "" keeps grants in memory only.
	Home string
	// ApproveAll is ODEK_APPROVE_MCP=1: every server and tool approved,
	// nothing stored.
	ApproveAll bool
	// ApproveHooks is ODEK_APPROVE_HOOKS=1: every project hook approved,
	// nothing stored.
	ApproveHooks bool
	// Confirmer asks the operator; nil when nobody can answer (fail closed).
	Confirmer Confirmer
	// Now stamps new grants; nil = time.Now.
	Now func() time.Time
	// Ephemeral keeps the grants given through the Confirmer in this Gate
	// only: the stored ones are honoured, nothing is written. An editor's
	// answers (odek acp) last for its session, not beyond.
	Ephemeral bool
}

// Gate implements mcpclient.Gate with stored grants and the operator's answers.
type Gate struct {
	all      bool
	allHooks bool
	ask      Confirmer
	now      func() time.Time
	spawn    *Store
	tools    *Store
	hooks    *Store
}

// New opens the approvals files under o.Home. A file that cannot be read or
// parsed is an error naming it: a broken store is never treated as empty.
func New(o Options) (*Gate, error) {
	g := &Gate{all: o.ApproveAll, allHooks: o.ApproveHooks, ask: o.Confirmer, now: o.Now}
	if g.now == nil {
		g.now = time.Now
	}
	var spawnPath, toolPath, hookPath string
	if o.Home != "" {
		spawnPath = filepath.Join(o.Home, SpawnFile)
		toolPath = filepath.Join(o.Home, ToolFile)
		hookPath = filepath.Join(o.Home, HookFile)
	}
	var err error
	if g.spawn, err = OpenStore(spawnPath); err != nil {
		return nil, newErr("", "mcp approval: "+err.Error(), err)
	}
	if g.tools, err = OpenStore(toolPath); err != nil {
		return nil, newErr("", "mcp approval: "+err.Error(), err)
	}
	if g.hooks, err = OpenStore(hookPath); err != nil {
		return nil, newErr("", "hook approval: "+err.Error(), err)
	}
	if o.Ephemeral {
		g.spawn.path, g.tools.path, g.hooks.path = "", "", ""
	}
	return g, nil
}

// trusted reports the operator's auto_approve. Config.AutoApprove counts only
// on a global server: the config loader strips it from project files, and
// this refuses it again should one slip through.
func trusted(s mcpclient.ServerSpec) bool {
	return s.AutoApprove || (!s.Project && s.Config.AutoApprove)
}

// Spawn grants a project-level server the right to be started; global
// servers need no spawn grant. The grant is keyed on the server's definition
// and the content of the project files its command line names. Declined at
// a prompt, the run goes on without the server (a warning); with nobody to
// ask, a missing grant fails the start.
func (g *Gate) Spawn(ctx context.Context, spec mcpclient.ServerSpec) (bool, []string, error) {
	if !spec.Project || g.all || trusted(spec) {
		return true, nil, nil
	}
	files := BoundFiles(spec.Dir, spec.Config)
	key := SpawnKey(spec.Dir, spec.Name, spec.Config, files)
	rec := g.spawnRecord(spec, files)
	if g.spawn.Has(key) {
		g.upgrade(g.spawn, key, rec)
		return true, nil, nil
	}
	if g.ask == nil {
		return false, nil, newErr(spec.Name, fmt.Sprintf("project-level MCP server %q (%s) requires explicit approval; %s",
			spec.Name, commandLine(spec.Config), approvalHint), ErrNotApproved)
	}
	ans, err := g.ask.Confirm(ctx, Question{Text: spawnQuestion(spec, files)})
	if err != nil {
		return false, nil, newErr(spec.Name, fmt.Sprintf("mcp approval: server %q: prompt failed: %v", spec.Name, err), err)
	}
	if ans == Deny {
		return false, []string{fmt.Sprintf("mcp server %q was not approved; running without it", spec.Name)}, nil
	}
	if err := g.spawn.Grant(key, rec); err != nil {
		return false, nil, newErr(spec.Name, fmt.Sprintf("mcp approval: server %q: %v", spec.Name, err), err)
	}
	return true, nil, nil
}

// Recheck implements mcpclient.Rechecker: before a server that exited is
// started again, its spawn grant must still hold for its definition and
// the current content of its bound project files. It never asks anyone: a
// project server whose files changed mid-run stays down.
func (g *Gate) Recheck(_ context.Context, spec mcpclient.ServerSpec) error {
	if !spec.Project || g.all || trusted(spec) {
		return nil
	}
	if g.spawn.Has(SpawnKey(spec.Dir, spec.Name, spec.Config, BoundFiles(spec.Dir, spec.Config))) {
		return nil
	}
	return newErr(spec.Name, fmt.Sprintf("project-level MCP server %q (%s) is no longer approved as it is now (its definition or a project file it names changed)",
		spec.Name, commandLine(spec.Config)), ErrNotApproved)
}

func (g *Gate) spawnRecord(spec mcpclient.ServerSpec, files []FileDigest) Record {
	r := Record{Kind: "spawn", Server: spec.Name, Dir: spec.Dir, Command: recordCommand(spec.Config), GrantedAt: g.now().UTC()}
	if len(files) > 0 {
		r.Files = make(map[string]string, len(files))
		for _, f := range files {
			r.Files[f.Path] = f.SHA256
		}
	}
	return r
}

func (g *Gate) toolRecord(spec mcpclient.ServerSpec, t mcpclient.ToolDef) Record {
	return Record{Kind: "tool", Server: spec.Name, Tool: t.Name, Dir: spec.Dir, Command: recordCommand(spec.Config),
		SchemaSHA256: SchemaSHA256(t.InputSchema), GrantedAt: g.now().UTC()}
}

// upgrade gives a grant stored without a record (by an older odek) the
// record of what it covers, so that approvals list and revoke can name it.
// Best effort: the grant holds either way.
func (g *Gate) upgrade(s *Store, key string, rec Record) {
	if !s.hasRecord(key) {
		_ = s.Grant(key, rec)
	}
}

// Tools screens and grants the tools a server offers. Oversized or
// injection-tainted schemas are skipped before anyone is asked; a tainted
// description is replaced by mcpclient.DescriptionPlaceholder. A declined
// tool is skipped; "every tool of this server" at a prompt grants the rest
// of this server's tools without asking again (each still screened and
// stored under its own key); a tool nobody can grant fails the whole start.
func (g *Gate) Tools(ctx context.Context, spec mcpclient.ServerSpec, defs []mcpclient.ToolDef) ([]mcpclient.ToolDef, []string, error) {
	var kept []mcpclient.ToolDef
	var warns []string
	serverWide := false
	for _, orig := range defs {
		t, warn, skip := screenTool(spec.Name, orig)
		warns = append(warns, warn...)
		if skip {
			continue
		}
		ans, err := g.grantTool(ctx, spec, orig, t, serverWide)
		if err != nil {
			return nil, warns, err
		}
		if ans == Deny {
			warns = append(warns, fmt.Sprintf("mcp server %q: tool %q was not approved; skipped", spec.Name, t.Name))
			continue
		}
		serverWide = serverWide || ans == ApproveServer
		kept = append(kept, t)
	}
	return kept, warns, nil
}

// screenTool applies the checks no grant can waive: the schema size cap, a
// schema with a duplicate key, and the injection scan of schema strings and
// description.
func screenTool(server string, t mcpclient.ToolDef) (mcpclient.ToolDef, []string, bool) {
	if n := len(t.InputSchema); n > MaxSchemaBytes {
		return t, []string{fmt.Sprintf("mcp server %q: tool %q skipped: input schema is %d bytes, over the %d-byte limit",
			server, t.Name, n, MaxSchemaBytes)}, true
	}
	if k := duplicateKey(t.InputSchema); k != "" {
		return t, []string{fmt.Sprintf("mcp server %q: tool %q skipped: its input schema has the key %q twice in one object, which parsers read differently",
			server, t.Name, k)}, true
	}
	if hit := schemaInjectionHit(t.InputSchema); hit != "" {
		return t, []string{fmt.Sprintf("mcp server %q: tool %q skipped: its input schema contains the prompt-injection pattern %q",
			server, t.Name, hit)}, true
	}
	if hit := injectionHit(t.Description); hit != "" {
		// The key must still cover the real description, so only the copy
		// shown to people and the model is replaced.
		t.Description = mcpclient.DescriptionPlaceholder
		return t, []string{fmt.Sprintf("mcp server %q: tool %q: description withheld (prompt-injection pattern %q)",
			server, t.Name, hit)}, false
	}
	return t, nil, false
}

// grantTool decides one tool. The key covers the tool as the server sent it
// (orig); the prompt shows the screened copy, whose description may be the
// placeholder. serverWide means the operator already approved every tool of
// this server.
func (g *Gate) grantTool(ctx context.Context, spec mcpclient.ServerSpec, orig, t mcpclient.ToolDef, serverWide bool) (Answer, error) {
	if g.all || trusted(spec) {
		return Approve, nil
	}
	key := ToolKey(spec.Dir, spec.Name, spec.Config, orig)
	rec := g.toolRecord(spec, orig)
	if g.tools.Has(key) {
		g.upgrade(g.tools, key, rec)
		return Approve, nil
	}
	ans := ApproveServer
	if !serverWide {
		if g.ask == nil {
			return Deny, newErr(spec.Name, fmt.Sprintf("MCP tool %q from server %q requires explicit approval; %s",
				t.Name, spec.Name, approvalHint), ErrNotApproved)
		}
		var err error
		ans, err = g.ask.Confirm(ctx, Question{Text: toolQuestion(spec, t), AllowServer: true})
		if err != nil {
			return Deny, newErr(spec.Name, fmt.Sprintf("mcp approval: tool %q from server %q: prompt failed: %v", t.Name, spec.Name, err), err)
		}
		if ans == Deny {
			return Deny, nil
		}
	}
	if err := g.tools.Grant(key, rec); err != nil {
		return Deny, newErr(spec.Name, fmt.Sprintf("mcp approval: tool %q from server %q: %v", t.Name, spec.Name, err), err)
	}
	return ans, nil
}

package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
)

// ResultStore keeps a whole output that a cap cut, as a run artifact.
type ResultStore interface {
	SaveResult(source, mediaType string, data []byte) (id string, err error)
}

// Options configure the tools of one run.
type Options struct {
	Classifier *risk.Classifier // working directory and path classification (required)
	Store      ResultStore      // nil: cut shell output is not kept
	Env        []string         // the environment shell commands get
	// Sandbox is the policy shell commands run under, through the
	// launcher (proc.SetLauncher); nil runs them without it.
	Sandbox *sandbox.Policy
	// Access is the sandbox's map the path tools obey (sandbox.NewAccess):
	// no protected path read or written, writes only below the writable
	// roots, none when read-only. nil obeys no map (tests of the tools
	// alone); odek always sets one, also with the kernel sandbox off.
	Access *sandbox.Access
	// OnDeny hears every call the map refused, as the risk policy's
	// OnDeny hears its refusals; nil drops them.
	OnDeny func(Denial)
	// OnHint hears, once a run, a hint the operator can act on (the
	// sandbox keeping the Go toolchain from writing its cache); nil drops it.
	OnHint func(string)
}

// Denial is a path tool call the sandbox's map refused.
type Denial struct {
	Tool   string
	What   string     // the path (or glob's pattern) as the model gave it
	Class  risk.Class // what the call was classified as
	Reason string     // why, on one bounded line (report, events)
	// Message is the refusal as the model reads it, paths as they are:
	// whoever shows it renders their control characters.
	Message string
}

// Tool is the loop's tool contract plus the optional methods every built-in
// tool has.
type Tool interface {
	Name() string
	Description() string
	Schema() json.RawMessage
	Call(ctx context.Context, args json.RawMessage) (string, error)
	ArgsSummary(args json.RawMessage) map[string]any
	AssessRisk(args json.RawMessage) (risk.Assessment, error)
}

// Names are the built-in tool names, those that exist and those reserved
// for tools registered elsewhere (artifact_read, plan, delegate_tasks): no
// MCP tool may take one.
var Names = []string{"read_file", "write_file", "list_dir", "glob", "search_files", "patch", "shell",
	"artifact_read", "plan", "delegate_tasks"}

// New returns the workspace tools.
func New(o Options) []Tool {
	ws := &workspace{cls: o.Classifier, store: o.Store, env: o.Env, sandbox: o.Sandbox, access: o.Access, onDeny: o.OnDeny,
		hint: &onceHint{fn: o.OnHint}}
	return []Tool{&readFile{ws}, &writeFile{ws}, &listDir{ws}, &globTool{ws}, &searchFiles{ws}, &patchTool{ws}, &shellTool{ws}}
}

// workspace is what the tools share.
type workspace struct {
	cls   *risk.Classifier
	store ResultStore
	env   []string
	// sandbox is the shell's policy (nil: no launcher).
	sandbox *sandbox.Policy
	// access is the map the path tools obey (nil: none); onDeny hears its
	// refusals.
	access *sandbox.Access
	onDeny func(Denial)
	hint   *onceHint // the operator's hints, given once
}

// decode reads a tool's JSON arguments strictly: an unknown field is an
// error naming it, so a misspelt argument is never silently ignored.
func decode(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// pathCall is one call of a path tool: what it does to which path, and
// how a denial names it.
type pathCall struct {
	tool string
	op   risk.Op
	path string // as the model gave it
	what string // the path, or glob's pattern
}

func newPathCall(tool string, op risk.Op, path string) pathCall {
	return pathCall{tool: tool, op: op, path: path, what: path}
}

// assessPath classifies one path operation; What is the path as given.
func (ws *workspace) assessPath(op risk.Op, path string) (risk.Assessment, string, error) {
	if path == "" {
		return risk.Assessment{}, "", ErrPathRequired
	}
	a, resolved := ws.cls.Path(op, path)
	a.What = path
	return a, resolved, nil
}

// assess is a call's risk, or the sandbox map's refusal of the path it
// resolves to: refused before anyone is asked about it.
func (ws *workspace) assess(c pathCall) (risk.Assessment, error) {
	a, resolved, err := ws.assessPath(c.op, c.path)
	if err != nil {
		return a, err
	}
	a.What = c.what
	return a, ws.decide(c, a.Class, resolved)
}

// recheck classifies again just before acting and fails if the class rose
// above what was approved, or if the map refuses the path it resolves to
// now; it returns the path to act on.
func (ws *workspace) recheck(ctx context.Context, c pathCall) (string, error) {
	a, resolved, err := ws.assessPath(c.op, c.path)
	if err != nil {
		return "", err
	}
	if approved, ok := risk.Approved(ctx); ok && a.Class > approved.Class {
		return "", &ChangedError{Tool: c.tool, Approved: approved.Class, Now: a}
	}
	if a.Class == risk.Blocked {
		return "", fmt.Errorf("%s: %s", c.tool, a.Reason)
	}
	return resolved, ws.decide(c, a.Class, resolved)
}

// decide asks the map about the resolved path (an unresolved one fails
// later, when it is opened).
func (ws *workspace) decide(c pathCall, class risk.Class, resolved string) error {
	if ws.access == nil || resolved == "" {
		return nil
	}
	return ws.refusal(c, class, ws.access.Decide(resolved, c.op == risk.Write))
}

// refused turns the map's refusal found in err (one the checks of what
// was opened made) into the call's denial; any other err is returned as
// it is.
func (ws *workspace) refused(ctx context.Context, c pathCall, err error) error {
	class := risk.Unknown
	if a, ok := risk.Approved(ctx); ok {
		class = a.Class
	}
	return ws.refusal(c, class, err)
}

// refusal is err as a SandboxDeniedError, told to OnDeny, when it is the
// map's refusal.
func (ws *workspace) refusal(c pathCall, class risk.Class, err error) error {
	var ae *sandbox.AccessError
	if !errors.As(err, &ae) {
		return err
	}
	d := &SandboxDeniedError{Tool: c.tool, What: c.what, Class: class, Err: ae}
	if ws.onDeny != nil {
		ws.onDeny(Denial{Tool: c.tool, What: c.what, Class: class, Reason: d.Reason(), Message: d.Error()})
	}
	return d
}

// pathSummary is {path, class} for path tools' tool_call_started events;
// a call without a path works on "." (list_dir, search_files).
func (ws *workspace) pathSummary(op risk.Op, args json.RawMessage) map[string]any {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(args, &a)
	p := a.Path
	if p == "" {
		p = "."
	}
	c, _ := ws.cls.Path(op, p)
	return map[string]any{"path": events.Clip(p), "class": c.Class.String()}
}

// schema builds an object schema from its properties and required names.
func schema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(append([]string{}, required...))
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `,"additionalProperties":false}`)
}

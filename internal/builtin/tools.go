package builtin

import (
	"bytes"
	"context"
	"encoding/json"
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
	ws := &workspace{cls: o.Classifier, store: o.Store, env: o.Env, sandbox: o.Sandbox}
	return []Tool{&readFile{ws}, &writeFile{ws}, &listDir{ws}, &globTool{ws}, &searchFiles{ws}, &patchTool{ws}, &shellTool{ws}}
}

// workspace is what the tools share.
type workspace struct {
	cls   *risk.Classifier
	store ResultStore
	env   []string
	// sandbox is the shell's policy (nil: no launcher).
	sandbox *sandbox.Policy
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

// assessPath classifies one path operation; What is the path as given.
func (ws *workspace) assessPath(op risk.Op, path string) (risk.Assessment, string, error) {
	if path == "" {
		return risk.Assessment{}, "", ErrPathRequired
	}
	a, resolved := ws.cls.Path(op, path)
	a.What = path
	return a, resolved, nil
}

// recheck classifies again just before acting and fails if the class rose
// above what was approved; it returns the path to act on.
func (ws *workspace) recheck(ctx context.Context, tool string, op risk.Op, path string) (string, error) {
	a, resolved, err := ws.assessPath(op, path)
	if err != nil {
		return "", err
	}
	if approved, ok := risk.Approved(ctx); ok && a.Class > approved.Class {
		return "", &ChangedError{Tool: tool, Approved: approved.Class, Now: a}
	}
	if a.Class == risk.Blocked {
		return "", fmt.Errorf("%s: %s", tool, a.Reason)
	}
	return resolved, nil
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

package subagent

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// ToolName is the built-in tool's name.
const ToolName = "delegate_tasks"

// unfiled is the artifacts directory of tasks of runs without a session.
const unfiled = "unfiled"

// Settings are the operator's subagent.* settings, as config resolved them.
type Settings struct {
	MaxDepth       int    // 0 = no sub-agents; negative = defaultMaxDepth; at most maxDepthCap
	TimeoutSeconds int    // 0 = defaultTimeoutSeconds; at most MaxTimeoutSeconds
	MaxIterations  int    // 0 = defaultIterations; at most MaxIterations
	BudgetInherit  string // inheritOperator (default) or inheritShare
}

// Normalized applies the defaults and caps of docs/CONFIG.md (subagent.*).
func (s Settings) Normalized() Settings {
	if s.MaxDepth < 0 {
		s.MaxDepth = defaultMaxDepth
	}
	if s.TimeoutSeconds <= 0 {
		s.TimeoutSeconds = defaultTimeoutSeconds
	}
	if s.MaxIterations <= 0 {
		s.MaxIterations = defaultIterations
	}
	s.MaxDepth = min(s.MaxDepth, maxDepthCap)
	s.TimeoutSeconds = min(s.TimeoutSeconds, MaxTimeoutSeconds)
	s.MaxIterations = min(s.MaxIterations, MaxIterations)
	if s.BudgetInherit != inheritShare {
		s.BudgetInherit = inheritOperator
	}
	return s
}

// Options wire delegate_tasks into a run. Runner and Semaphore are required.
type Options struct {
	// Sandbox is written into every task file: the parent's sandbox, the
	// widest a child may use (nil: the parent has none).
	Sandbox *wire.TaskSandbox
	// NoAgents is written into every task file: the parent reads no
	// AGENTS.md (no_agents), so neither do its children.
	NoAgents  bool
	Runner    Runner
	Semaphore *Semaphore // process-wide: one per process, shared by every call
	Settings  Settings
	Events    *events.Emitter // the parent's (nil emits nothing)
	Budget    *budget.Tracker // the parent's (nil: no limits, nothing charged)
	// OnOverrun receives the budget error when a child's charge-back takes
	// the run past a limit, at once, from the child's goroutine: the caller
	// stops the run with it (exit 4). nil = the loop finds it at its end.
	OnOverrun func(error)
	Store     Registrar // where delivered artifacts are registered

	Depth       int    // this process's depth (ODEK_SUBAGENT_DEPTH)
	ParentTrust string // this process's trust ("" = trusted: a top-level run)
	// Tainted reports whether this run has ingested untrusted content (a
	// file, a tool's or server's output, a child's result), read when a
	// call starts; while it says true the run passes parent_trust
	// untrusted, so no task of the call can be trusted (docs/SUBAGENTS.md).
	// nil = never tainted.
	Tainted func() bool
	// ArtifactsHome is $ODEK_HOME/artifacts: each task gets the 0700
	// directory <ArtifactsHome>/<session id, or "unfiled">/<task id>.
	ArtifactsHome string
	TempDir       string // task files (made 0700 if missing); "" = os.TempDir()
	Workspace     string // the children's working directory

	Env         []string          // this process's environment
	SecretNames []string          // names secrets.env defines
	Secret      func(string) bool // secret-looking names
	APIKey      string            // handed to children on fd 3, never in env or argv

	// Model and BaseURL are the parent's endpoint, which the child takes
	// like flags; Provider labels it (BaseURL without userinfo, query or
	// fragment, as a session records it) and is never read as an endpoint.
	Provider, Model, BaseURL string
	// ParentTools returns the names of the tools this run offers its model,
	// read when a call starts; the children offer no tool outside it. nil =
	// no narrowing (not a run of the CLI).
	ParentTools func() []string
	// ParentPolicy is this run's effective risk policy; every call of a
	// child must pass it as well as the child's own. nil = none passed.
	ParentPolicy *wire.Policy
	// LLM are this run's resolved LLM settings (keys of LLMSettingKeys),
	// which the children take as flags.
	LLM map[string]string
	// Session returns the run's session id ("" = none), read when a call
	// starts: a session may begin after the tool is built.
	Session func() string
	// ForwardEvents asks children to relay their events, which are then
	// queued on Events (set when the run has an event sink).
	ForwardEvents bool
	// ChildArgs, when set, gives further flags for the child of a goal
	// (odek run --record/--replay: the child's cassette stream). It is
	// called for a batch's tasks in their order, before any child starts.
	ChildArgs func(goal string) []string
	// OnLine receives each child's telemetry lines (task index from 0), for
	// a progress display. It is called from the reading goroutines.
	OnLine func(task int, l *wire.Line)
	// Hooks fires SubagentStart before each child starts (their context
	// joins the task's context) and SubagentStop after it ended (a block's
	// reason reaches the model with the result: the child cannot go on).
	// nil = none.
	Hooks Hooks
	// KillMargin is how long past its timeout a child may take to report
	// before it is stopped; 0 means defaultKillMargin.
	KillMargin time.Duration
	Now        func() time.Time
}

// Hooks runs lifecycle hooks (internal/hooks.Runner).
type Hooks interface {
	Fire(ctx context.Context, in hooks.Input) hooks.Result
}

// Tool is the delegate_tasks built-in tool. It satisfies the agent loop's
// Tool interface.
type Tool struct {
	o Options
}

// NewTool returns delegate_tasks over o.
func NewTool(o Options) *Tool {
	o.Settings = o.Settings.Normalized()
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.KillMargin <= 0 {
		o.KillMargin = defaultKillMargin
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	return &Tool{o: o}
}

// Name implements the loop's Tool.
func (t *Tool) Name() string { return ToolName }

// Description implements the loop's Tool.
func (t *Tool) Description() string {
	return "Delegate 1 to 8 independent tasks to isolated sub-agents that run in parallel and report back. " +
		"Each sub-agent sees only its goal, guidance and context (not this conversation), never asks questions, " +
		"works under a policy that is never wider than yours, and returns a status, a short summary, the files " +
		"it changed and artifacts you can read with artifact_read. Use it for work that splits cleanly; " +
		"do small things yourself."
}

// Schema implements the loop's Tool.
func (t *Tool) Schema() json.RawMessage { return schema() }

// ProducesArtifacts reports that delegate_tasks hands back artifacts, so
// artifact_read is offered beside it.
func (t *Tool) ProducesArtifacts() bool { return true }

// ArgsSummary implements loop.ArgsSummarizer: {task_count} only, never a goal.
func (t *Tool) ArgsSummary(raw json.RawMessage) map[string]any {
	var a struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	_ = json.Unmarshal(raw, &a)
	return map[string]any{"task_count": len(a.Tasks)}
}

// AssessRisk implements loop.RiskAssessor. Delegating is safe in itself:
// every child runs under a policy no wider than this run's and never asks
// anyone, so there is nothing to approve here.
func (t *Tool) AssessRisk(json.RawMessage) (risk.Assessment, error) {
	return risk.Assessment{Class: risk.Safe, Set: risk.Of(risk.Safe), What: "delegate_tasks",
		Reason: "sub-agents run under a policy no wider than this run's"}, nil
}

// Call runs the tasks and returns the rendered results. Bad arguments and
// the depth limit are result texts ({"error":…}); an exhausted shared
// budget fails the call with a *SpawnRefusedError before any child starts.
func (t *Tool) Call(ctx context.Context, raw json.RawMessage) (string, error) {
	args, errText := parseArgs(raw)
	if errText != "" {
		return errText, nil
	}
	s := t.o.Settings
	if t.o.Depth >= s.MaxDepth {
		return depthLimitText(t.o.Depth, s.MaxDepth), nil
	}
	grants, err := t.o.Budget.Reserve(len(args.Tasks), t.o.Now())
	if err != nil {
		return "", &SpawnRefusedError{Err: err}
	}
	liveness.SetPhase(ctx, liveness.PhaseSubagent)
	parent, tainted := t.parentTrust()
	// Each child's further flags are asked for in task order, before any
	// child starts: a recorded delegation names its children's cassette
	// streams by goal and count, and a replay must give each task its own.
	extra := make([][]string, len(args.Tasks))
	for i, spec := range args.Tasks {
		extra[i] = t.childArgs(spec.Goal)
	}
	reports := make([]report, len(args.Tasks))
	arts := make([]taskArtifacts, len(args.Tasks))
	var wg sync.WaitGroup
	for i, spec := range args.Tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, ta := t.runTask(ctx, i, spec, grants, parent, extra[i])
			reports[i] = report{Index: i + 1, Goal: spec.Goal, Result: res, Tainted: tainted && spec.TrustLevel == wire.Trusted}
			arts[i] = ta
		}()
	}
	wg.Wait()
	lines := deliverArtifacts(arts, t.o.Store)
	for i := range reports {
		reports[i].Artifacts = lines[i+1]
	}
	return renderResults(reports), nil
}

func (t *Tool) emit(typ events.Type, data map[string]any) {
	t.o.Events.Emit(typ, 0, ToolName, data)
}

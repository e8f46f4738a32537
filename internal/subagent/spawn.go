package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/telemetry"
)

// defaultKillMargin is how long after its own timeout a child may take to
// report before the parent stops it.
const defaultKillMargin = 5 * time.Second

// runTask runs one task to its end and returns the result the model sees and
// the refs to deliver. It never fails: every problem becomes a status.
// extra are the child's further flags (Options.ChildArgs).
func (t *Tool) runTask(ctx context.Context, index int, spec TaskSpec, grants budget.Grants, parentTrust string, extra []string) (*wire.Result, taskArtifacts) {
	share := grants.Shares[index]
	res, ta := t.runReserved(ctx, index, spec, budgetFor(grants, index), parentTrust, extra)
	t.settle(share, res)
	return res, ta
}

// runReserved is runTask within the child's reservation.
func (t *Tool) runReserved(ctx context.Context, index int, spec TaskSpec, share *wire.Budget, parentTrust string, extra []string) (*wire.Result, taskArtifacts) {
	taskID := wire.NewTaskID()
	ta := taskArtifacts{Index: index + 1}
	session := t.session()
	root, err := t.artifactRoot(session, taskID)
	if err != nil {
		return notSpawned(err), ta
	}
	ta.Root = root
	err = t.o.Semaphore.Acquire(ctx, func(waited time.Duration) {
		t.emit(events.SubagentConcurrencyWait, map[string]any{"task_index": index, "waited_ms": waited.Milliseconds()})
	})
	if err != nil {
		return &wire.Result{Status: wire.StatusCancelled, Error: "sub-agent cancelled", Usage: &wire.Usage{}}, ta
	}
	defer t.o.Semaphore.Release()
	task := &wire.Task{
		TaskID: taskID, Protocol: wire.Protocol, Goal: spec.Goal, Context: spec.Context, Guidance: spec.Guidance,
		TrustLevel: spec.TrustLevel, MaxRisk: spec.MaxRisk, Profile: spec.Profile, Budget: share,
		ParentTrust: parentTrust, ArtifactRoot: root, Provider: t.o.Provider, Model: t.o.Model,
		BaseURL: t.o.BaseURL, ParentRunID: t.o.Events.RunID(), ParentSession: session,
		Events:       t.o.ForwardEvents && t.o.Events != nil,
		ParentPolicy: t.o.ParentPolicy, LLM: t.o.LLM, Sandbox: t.o.Sandbox, NoAgents: t.o.NoAgents,
	}
	if t.o.ParentTools != nil {
		tools := append([]string{}, t.o.ParentTools()...)
		task.ParentTools = &tools
	}
	t.subagentStart(ctx, task)
	start := t.o.Now()
	res := t.spawn(ctx, index, task, extra)
	if res.DurationSeconds == 0 {
		res.DurationSeconds = t.o.Now().Sub(start).Seconds()
	}
	res.Bound()
	t.subagentStop(ctx, task, res)
	t.completed(index, taskID, res)
	ta.Refs = res.Artifacts
	return res, ta
}

// parentTrust is the parent_trust of this call's tasks: this process's
// trust, lowered to untrusted once the run has ingested untrusted content.
// tainted says that the taint, not the process's own trust, lowered it.
func (t *Tool) parentTrust() (trust string, tainted bool) {
	trust = t.o.ParentTrust
	if trust == "" {
		trust = wire.Trusted
	}
	if trust == wire.Trusted && t.o.Tainted != nil && t.o.Tainted() {
		return wire.Untrusted, true
	}
	return trust, false
}

func (t *Tool) session() string {
	if t.o.Session == nil {
		return ""
	}
	if id := t.o.Session(); wire.IsName(id) {
		return id
	}
	return ""
}

// artifactRoot creates the task's 0700 artifact directory under the
// session's (or "unfiled").
func (t *Tool) artifactRoot(session, taskID string) (string, error) {
	if t.o.ArtifactsHome == "" {
		return "", errors.New("no artifacts directory")
	}
	if session == "" {
		session = unfiled
	}
	dir := filepath.Join(t.o.ArtifactsHome, session)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("artifact directory: %w", err)
	}
	root := filepath.Join(dir, taskID)
	if err := os.Mkdir(root, 0o700); err != nil {
		return "", fmt.Errorf("artifact directory: %w", err)
	}
	return root, nil
}

// spawn writes the task file, starts the child with the further flags
// extra, reads its stream and maps how it ended to a result.
func (t *Tool) spawn(ctx context.Context, index int, task *wire.Task, extra []string) *wire.Result {
	s := t.o.Settings
	file, err := t.writeTaskFile(task)
	if err != nil {
		return notSpawned(err)
	}
	defer os.Remove(file)
	timeout := time.Duration(s.TimeoutSeconds) * time.Second
	cctx, cancel := context.WithTimeout(ctx, timeout+t.o.KillMargin)
	defer cancel()
	proc, err := t.o.Runner.Start(cctx, Spec{
		TaskID: task.TaskID, TaskFile: file, Dir: t.o.Workspace, Key: t.o.APIKey,
		Args: append([]string{"--timeout", strconv.Itoa(s.TimeoutSeconds), "--max-iter", strconv.Itoa(s.MaxIterations)}, extra...),
		// The call's trace context (when traced): the child's invoke_agent
		// span nests under this delegate_tasks call's execute_tool span.
		Env: telemetry.Environ(ctx, childEnv(t.o.Env, t.o.SecretNames, t.o.Secret, t.o.Depth+1, t.o.APIKey != "")),
	})
	if err != nil {
		return notSpawned(err)
	}
	t.emit(events.SubagentSpawned, map[string]any{
		"task_id": task.TaskID, "pid": proc.PID(), "depth": t.o.Depth + 1,
		"timeout_seconds": s.TimeoutSeconds, "goal_sha256": wire.GoalHash(task.Goal), "trust": task.Trust(),
	})
	stream, rerr := wire.ReadStream(proc.Stdout(), wire.StreamLimits{}, func(l *wire.Line) {
		if !heartbeat(l) {
			liveness.Touch(ctx) // the child did something: progress for the parent's watchdog
		}
		t.onLine(index, task.TaskID, l)
	})
	if rerr != nil {
		proc.Kill()
	}
	werr := proc.Wait()
	return outcome{
		Stream: stream, ReadErr: rerr, WaitErr: werr, Timeout: timeout,
		TimedOut:  errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil,
		Cancelled: ctx.Err() != nil, Stderr: proc.StderrTail(),
	}.Resolve()
}

// writeTaskFile writes the task as a fresh 0600 file in TempDir.
func (t *Tool) writeTaskFile(task *wire.Task) (string, error) {
	data, err := task.Encode()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(t.o.TempDir, 0o700); err != nil {
		return "", fmt.Errorf("task file: %w", err)
	}
	f, err := os.CreateTemp(t.o.TempDir, "odek-task-*.json") // O_EXCL, mode 0600
	if err != nil {
		return "", fmt.Errorf("task file: %w", err)
	}
	if err := writeClose(f, data); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("task file: %w", err)
	}
	return f.Name(), nil
}

// writeClose writes data to f and closes it. A failed write is the error
// even when the close succeeds; a close that fails after a good write is one
// too (where some filesystems report a lost write), so the child is never
// handed a short task file.
func writeClose(f io.WriteCloser, data []byte) error {
	_, err := f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// heartbeat reports a child's run_heartbeat: the child is alive, which
// says nothing about whether it gets anywhere (its own watchdog judges
// that), so it is no progress for the parent.
func heartbeat(l *wire.Line) bool {
	if l.Type != wire.LineEvent {
		return false
	}
	var ev struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(l.Event, &ev) == nil && ev.Type == string(events.RunHeartbeat)
}

// onLine relays a child's forwarded events (when they were asked for:
// others are dropped), each wrapped whole in a subagent_event of this run
// (DECISION 28), and hands the rest to OnLine.
func (t *Tool) onLine(index int, taskID string, l *wire.Line) {
	if l.Type == wire.LineEvent {
		if !t.o.ForwardEvents {
			return
		}
		if ev := forwardedEvent(l.Event, t.o.Events.RunID(), taskID); ev != nil {
			t.emit(events.SubagentEvent, map[string]any{"task_id": taskID, "event": ev})
		}
		return
	}
	if t.o.OnLine != nil {
		t.o.OnLine(index, l)
	}
}

// completed emits subagent_completed and one subagent_denied per reported
// denial, and charges the child's use to the parent's budget.
func (t *Tool) completed(index int, taskID string, r *wire.Result) {
	d := map[string]any{"task_id": taskID, "status": r.Status}
	if r.Iterations > 0 {
		d["iterations"] = r.Iterations
	}
	if r.DurationSeconds > 0 {
		d["duration_seconds"] = r.DurationSeconds
	}
	if r.TokensUsed > 0 {
		d["tokens_used"] = r.TokensUsed
	}
	if n := len(r.Artifacts); n > 0 {
		d["artifact_count"] = n
	}
	t.emit(events.SubagentCompleted, d)
	for _, dn := range r.Denials {
		t.emit(events.SubagentDenied, map[string]any{"task_index": index, "class": dn.Class, "reason": dn.Reason, "tool": dn.Tool})
	}
}

// notSpawned is the result of a task whose child never started: it spent
// nothing.
func notSpawned(err error) *wire.Result {
	return &wire.Result{Status: wire.StatusError, Error: "subagent not spawned: " + err.Error(), Usage: &wire.Usage{}}
}

// settle releases the child's reservation and charges what it spent; when
// that takes the run past a limit, OnOverrun stops the run at once.
func (t *Tool) settle(share budget.Reservation, r *wire.Result) {
	if err := t.o.Budget.Settle(share, chargeOf(r, share)); err != nil && t.o.OnOverrun != nil {
		t.o.OnOverrun(err)
	}
}

// chargeOf is what a child's result says it spent. A result without the
// split counts tokens_used as input tokens. A result without usage (the
// parent made it up: the child was killed, timed out or printed none)
// says nothing of what was spent, so the child is charged at least its
// whole reservation.
func chargeOf(r *wire.Result, share budget.Reservation) budget.ChildUsage {
	u := budget.ChildUsage{InputTokens: r.TokensUsed}
	if r.Usage != nil {
		u = budget.ChildUsage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens, ToolCalls: r.Usage.ToolCalls,
			Estimated: r.Usage.Estimated}
	}
	if r.CostUSD != nil {
		u.CostMicroUSD = budget.CostFromUSD(*r.CostUSD)
	}
	if r.Usage == nil {
		u.ToolCalls = max(u.ToolCalls, share.ToolCalls)
		u.InputTokens = max(u.InputTokens, share.InputTokens)
		u.OutputTokens = max(u.OutputTokens, share.OutputTokens)
		u.CostMicroUSD = max(u.CostMicroUSD, share.CostMicroUSD)
	}
	return u
}

// childArgs are Options.ChildArgs for goal, if set.
func (t *Tool) childArgs(goal string) []string {
	if t.o.ChildArgs == nil {
		return nil
	}
	return t.o.ChildArgs(goal)
}

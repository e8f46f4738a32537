package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/telemetry"
	"github.com/odek-run/odek/internal/untrusted"
)

// Caps of shell.
const (
	DefaultShellTimeout = 120 * time.Second
	MaxShellTimeout     = 600 * time.Second
	MaxShellOutput      = 32 << 10 // bytes of output the model sees: the first 24 KiB and the last 8 KiB
	maxShellKeep        = 8 << 20  // bytes of output kept for the artifact when the cap cuts it
	shellWaitDelay      = 2 * time.Second
)

type shellTool struct{ ws *workspace }

func (t *shellTool) Name() string { return "shell" }

func (t *shellTool) Description() string {
	return fmt.Sprintf("Run a command with bash -c in the working directory and return its exit code and output "+
		"(stdout and stderr interleaved). `description` says in a few words what the command is for. "+
		"`timeout` is in seconds (default %d, at most %d); on timeout the command and every process it started "+
		"are killed. Output over %d KiB keeps its first 24 KiB and last 8 KiB; the whole output is then saved as "+
		"an artifact you can page through with artifact_read. stdin is empty. Every command is classified by risk "+
		"(reads, writes, network, installs, code execution) and may need the operator's approval or be denied.",
		int(DefaultShellTimeout.Seconds()), int(MaxShellTimeout.Seconds()), MaxShellOutput>>10)
}

func (t *shellTool) Schema() json.RawMessage {
	return schema(`"command":{"type":"string","description":"the bash command line"},`+
		`"description":{"type":"string","description":"what the command is for, in a few words"},`+
		fmt.Sprintf(`"timeout":{"type":"integer","minimum":1,"maximum":%d,"description":"seconds before the command is killed (default %d)"}`,
			int(MaxShellTimeout.Seconds()), int(DefaultShellTimeout.Seconds())), "command", "description")
}

type shellArgs struct {
	Command     string `json:"command"`
	Description string `json:"description"`
	Timeout     int    `json:"timeout"`
}

func (t *shellTool) parse(args json.RawMessage) (shellArgs, time.Duration, error) {
	var a shellArgs
	if err := decode(args, &a); err != nil {
		return a, 0, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return a, 0, ErrCommandRequired
	}
	if a.Timeout < 0 {
		return a, 0, fmt.Errorf("timeout %d must be >= 1 second", a.Timeout)
	}
	d := DefaultShellTimeout
	if a.Timeout > 0 {
		// Clamp in seconds first: a huge timeout times time.Second overflows
		// to a negative duration, which would kill the command at once.
		d = time.Duration(min(a.Timeout, int(MaxShellTimeout/time.Second))) * time.Second
	}
	return a, d, nil
}

func (t *shellTool) ArgsSummary(args json.RawMessage) map[string]any {
	var a shellArgs
	_ = json.Unmarshal(args, &a)
	return map[string]any{"argv0": events.Argv0(a.Command), "class": t.ws.cls.Shell(a.Command).Class.String()}
}

func (t *shellTool) AssessRisk(args json.RawMessage) (risk.Assessment, error) {
	a, _, err := t.parse(args)
	if err != nil {
		return risk.Assessment{}, err
	}
	as := t.ws.cls.Shell(a.Command)
	as.What = a.Command
	return as, nil
}

func (t *shellTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, timeout, err := t.parse(args)
	if err != nil {
		return "", err
	}
	now := t.ws.cls.Shell(a.Command)
	if approved, ok := risk.Approved(ctx); ok && now.Class > approved.Class {
		return "", &ChangedError{Tool: t.Name(), Approved: approved.Class, Now: now}
	}
	out := newCapture(MaxShellOutput, maxShellKeep)
	out.onWrite = func() { liveness.Touch(ctx) } // output is progress for the stall watchdog
	res := runGroup(ctx, runSpec{command: a.Command, dir: t.ws.cls.Root(), env: telemetry.Environ(ctx, t.ws.env), timeout: timeout, out: out,
		sandbox: t.policyFor(now)})
	if res.err != nil && !res.timedOut && ctx.Err() == nil {
		return "", fmt.Errorf("shell: %w", res.err)
	}
	body, note := out.text(), t.saveWhole(out)
	if lowered := proc.RestoreLimits(); lowered != "" {
		note += "\nnote: " + lowered
	}
	switch {
	case ctx.Err() != nil:
		return "", context.Cause(ctx)
	case res.timedOut:
		return "", &TimeoutError{After: timeout, Contained: res.contained, Output: untrusted.Wrap("shell", body) + note}
	}
	liveness.SetExitCode(ctx, res.code)
	if t.ws.sandbox != nil && res.code != 0 {
		if h := goCacheHint(body); h != "" {
			note += "\n" + h
			t.ws.hint.tell(h)
		}
	}
	return fmt.Sprintf("exit code: %d%s\n%s%s", res.code, out.summary(), untrusted.Wrap("shell", body), note), nil
}

// policyFor is the sandbox of one command: the tool's policy, with the
// network on when the command is network_egress and the policy let it
// through (the gate approved it with that class: a command reaches the
// network only when it was let through as one that does).
func (t *shellTool) policyFor(now risk.Assessment) *sandbox.Policy {
	if t.ws.sandbox == nil {
		return nil
	}
	p := *t.ws.sandbox
	if now.Set.Has(risk.NetworkEgress) || now.Class == risk.NetworkEgress {
		p.Network = true
	}
	return &p
}

// saveWhole keeps the whole output as an artifact when the cap cut it, and
// returns the metadata line that names it, or the notice that says why it
// was not kept (the run's artifact cap).
func (t *shellTool) saveWhole(out *capture) string {
	if !out.cut() || t.ws.store == nil {
		return ""
	}
	data := out.whole()
	id, err := t.ws.store.SaveResult("builtin:shell", "text/plain; charset=utf-8", data)
	if err != nil {
		return "\n" + artifact.NotSavedNotice(err, "shell command's output", int64(len(data)))
	}
	summary := "full output of the shell command; page through it with artifact_read"
	if out.total > int64(len(data)) {
		summary = fmt.Sprintf("first %d of %d bytes of the shell command's output; page through it with artifact_read", len(data), out.total)
	}
	return "\n" + artifact.FormatMetadataLine(id, "text/plain; charset=utf-8", int64(len(data)), "", summary)
}

type runSpec struct {
	command, dir string
	env          []string
	timeout      time.Duration
	out          *capture
	sandbox      *sandbox.Policy // nil: no launcher
}

type runResult struct {
	code      int
	timedOut  bool
	contained bool // the launcher saw every descendant gone
	err       error
}

// exitCode reads a finished command's exit status (128+n for a signal);
// it is negative only beside an error.
func exitCode(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code >= 0 {
			return code, nil
		}
		return 128 + signalOf(ee), nil
	}
	return -1, err
}

// ProducesArtifacts tells the CLI that artifact_read has something to read:
// a cut output is saved whole.
func (t *shellTool) ProducesArtifacts() bool { return t.ws.store != nil }

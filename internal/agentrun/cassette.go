package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/cassette"
	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/iostreams"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/redact"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// Replay modes (--replay-mode).
const (
	ReplayStrict  = "strict"  // the model, the MCP servers and the shell from the cassette
	ReplayLenient = "lenient" // the model from the cassette; tools run for real
)

// Cassette is --record, --replay and --replay-mode (run, continue,
// subagent), and for a sub-agent the stream its parent named
// (--cassette-stream).
type Cassette struct {
	Record, Replay, Mode string
	Stream               string
}

func (c *Cassette) check() error {
	switch {
	case c.Record != "" && c.Replay != "":
		return errclass.Wrap(errclass.SetupError, errors.New("--record and --replay exclude each other"))
	case c.Mode != ReplayStrict && c.Mode != ReplayLenient:
		return errclass.Wrap(errclass.SetupError, fmt.Errorf("--replay-mode %q: want strict or lenient", c.Mode))
	case c.Stream != "" && c.Record == "" && c.Replay == "":
		return errclass.Wrap(errclass.SetupError, errors.New("--cassette-stream needs --record or --replay"))
	}
	return nil
}

// cassetteState is the run's recorder or player (at most one is set).
type cassetteState struct {
	rec    *cassette.Recorder
	play   *cassette.Player
	flags  Cassette
	mu     sync.Mutex
	childN map[string]int // sub-agent streams named so far, by goal hash
}

func (c *cassetteState) replaying() bool { return c != nil && c.play != nil }

// departed: a replay left its cassette (the run was stopped for it, not
// interrupted).
func (c *cassetteState) departed() bool { return c.replaying() && c.play.Err() != nil }

// strict: the tools as well as the model come from the cassette.
func (c *cassetteState) strict() bool { return c.replaying() && !c.play.Lenient() }

// openCassette starts recording or opens the cassette to replay. depart
// is told of the first departure (to stop the run).
func openCassette(f Cassette, meta cassette.Meta, depart func(error)) (*cassetteState, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	c := &cassetteState{flags: f, childN: map[string]int{}}
	var err error
	switch {
	case f.Record != "" && f.Stream != "":
		c.rec, err = cassette.Attach(f.Record, f.Stream, cassette.RecordOptions{Redact: redact.String, RedactField: redact.Field})
	case f.Record != "":
		c.rec, err = cassette.Create(f.Record, cassette.RecordOptions{
			Meta: meta, Redact: redact.String, RedactField: redact.Field})
	case f.Replay != "":
		c.play, err = cassette.Open(f.Replay, cassette.PlayOptions{Prefix: f.Stream,
			Lenient: f.Mode == ReplayLenient, Roots: meta.Roots, Redact: redact.String, RedactField: redact.Field, OnDepart: depart})
	default:
		return nil, nil
	}
	if err != nil {
		flag := "--record"
		if f.Replay != "" {
			flag = "--replay"
		}
		return nil, errclass.Wrap(errclass.SetupError, fmt.Errorf("%s: %w", flag, err))
	}
	return c, nil
}

// httpClient is the LLM client's HTTP client: nil (the default) unless a
// cassette records or serves the exchanges.
func (c *cassetteState) httpClient() (*http.Client, error) {
	if c == nil {
		return nil, nil
	}
	var rt http.RoundTripper
	var err error
	if c.rec != nil {
		rt = c.rec.LLMTransport(llm.DefaultTransport())
	} else {
		rt, err = c.play.LLMTransport()
	}
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, fmt.Errorf("--replay: %w", err)) // the recorder's transport cannot fail
	}
	return &http.Client{Transport: rt}, nil
}

// retryWait is the LLM client's wait between attempts: nil (the real
// one) unless replaying, where a recorded retry is served at once (the
// wait was the recording's; the cassette holds no clock).
func (c *cassetteState) retryWait() func(context.Context, time.Duration) error {
	if !c.replaying() {
		return nil
	}
	return func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
}

// mcpHooks sets the MCP client's tap (recording) or stand-in (strict replay).
func (c *cassetteState) mcpHooks(o *mcpclient.Options) {
	switch {
	case c == nil:
	case c.rec != nil:
		o.Tap = func(server string) (mcpclient.WireTap, error) { return c.rec.MCPTap(server) }
	case c.strict():
		o.Replay = func(server string) (mcpclient.Peer, error) { return c.play.MCPPeer(server) }
	}
}

// wrapTools records or replays the built-in tools whose outcome depends on
// the world outside the workspace: the shell.
func (c *cassetteState) wrapTools(tools []loop.Tool) []loop.Tool {
	if c == nil || c.replaying() && !c.strict() {
		return tools
	}
	for i, t := range tools {
		if inner, ok := t.(shellLike); ok && t.Name() == "shell" {
			tools[i] = &cassetteTool{shellLike: inner, c: c}
		}
	}
	return tools
}

// finish ends the cassette: a replay that departed or ended early, or a
// recording that failed to write, fails the run (exit 3) whatever the loop
// returned; runErr is returned otherwise. A replay that its budget or an
// interrupt (sig, the signal context, is done) stopped ended early for
// that reason, not for its cassette: it keeps its error (exit 4, 130)
// unless a request departed first.
func (c *cassetteState) finish(sig context.Context, runErr error) error {
	if c == nil {
		return runErr
	}
	if c.rec != nil {
		if err := c.rec.Close(); err != nil {
			return errclass.Wrap(errclass.SetupError, fmt.Errorf("--record: %w", err))
		}
		return runErr
	}
	if err := c.play.Err(); err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	if budget.IsBudget(runErr) || errors.Is(runErr, context.Canceled) && sig.Err() != nil {
		return runErr
	}
	if err := c.play.Finish(); err != nil {
		return errclass.Wrap(errclass.SetupError, err)
	}
	return runErr
}

// childArgs are the cassette flags of a sub-agent: it records into, or
// replays from, this run's cassette under a stream named by its goal (and
// how many children of that goal came before), so a replayed delegation
// finds the streams its recording wrote.
func (c *cassetteState) childArgs(goal string) []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	h := wire.GoalHash(goal)[:12]
	c.childN[h]++
	name := fmt.Sprintf("sub-%s-%d", h, c.childN[h])
	c.mu.Unlock()
	if c.flags.Stream != "" {
		name = c.flags.Stream + "." + name
	}
	if c.rec != nil {
		return []string{"--record", c.rec.Dir(), "--cassette-stream", name}
	}
	c.play.ChildStarted(name)
	return []string{"--replay", c.flags.Replay, "--replay-mode", c.flags.Mode, "--cassette-stream", name}
}

// shellLike is what the shell tool offers the loop.
type shellLike interface {
	loop.Tool
	loop.ArgsSummarizer
	loop.RiskAssessor
}

// cassetteTool records or replays a tool's calls; the gate still rules on
// every call first, as in the recorded run.
type cassetteTool struct {
	shellLike
	c *cassetteState
}

func (t *cassetteTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	if t.c.play != nil {
		return t.c.play.PlayTool(t.Name(), args)
	}
	out, err := t.shellLike.Call(ctx, args)
	if rerr := t.c.rec.RecordTool(t.Name(), args, out, err); rerr != nil {
		return out, errors.Join(err, rerr)
	}
	return out, err
}

// ProducesArtifacts is the shell's own (ArgsSummary and AssessRisk are
// promoted from shellLike).
func (t *cassetteTool) ProducesArtifacts() bool {
	p, ok := t.shellLike.(interface{ ProducesArtifacts() bool })
	return ok && p.ProducesArtifacts()
}

// openRunCassette opens --record or --replay for a run. The roots are what
// the cassette's paths are normalised by: the working directory, odek's
// home and $HOME; version is odek's and agents the AGENTS.md files read,
// for a new cassette's meta. depart is told the first departure from a
// replay.
func openRunCassette(ios *iostreams.IOStreams, f Cassette, odekHome, version string, agents []cassette.AgentsFile, depart func(error)) (*cassetteState, error) {
	if f.Record == "" && f.Replay == "" {
		return nil, f.check()
	}
	wd, err := ios.Getwd()
	if err != nil {
		return nil, errclass.Wrap(errclass.SetupError, err)
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	roots := map[string]string{"workdir": wd, "odek_home": odekHome}
	if h := ios.Env("HOME"); h != "" {
		roots["home"] = h
	}
	return openCassette(f, cassette.Meta{OdekVersion: version, Roots: roots, AgentsFiles: agents}, depart)
}

package acp

import (
	"context"

	"github.com/odek-run/odek/internal/approval"
	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/mcpclient"
	"github.com/odek-run/odek/internal/plan"
	"github.com/odek-run/odek/internal/policy"
	store "github.com/odek-run/odek/internal/session"
)

// Runner is the run side of `odek acp`: it opens odek's sessions and runs
// their turns. The agent knows odek's loop only through it; the CLI's run
// assembly implements it.
type Runner interface {
	// Open prepares one session for turns: a new odek session when req.ID
	// is "", else the saved session req.ID (session/load, session/resume;
	// an unknown id is an error wrapping ErrUnknownSession). What a run
	// needs across turns — the config of req.Cwd, the MCP servers with
	// req.MCPServers added, the tools, one policy whose Asker is
	// req.Asker — lives in the Session until Close. An error here is the
	// client's session/new (load, resume) error.
	Open(ctx context.Context, req OpenRequest) (Session, error)
	// List returns odek's saved sessions, newest first (session/list).
	List(ctx context.Context) ([]store.Summary, error)
}

// OpenRequest is what the client asked a session to be.
type OpenRequest struct {
	// ID is the odek session to load; "" opens a new one.
	ID string
	// Cwd is the absolute working directory the client named.
	Cwd string
	// MCPServers are the client's servers, converted: operator servers,
	// as if named by --mcp-config (Project false). They come on top of
	// the configured ones; a name both define is the client's.
	MCPServers []config.MCPServer
	// Secrets are the values of the variables the servers' TokenEnv name
	// (an HTTP server's bearer token): the run side resolves TokenEnv
	// from here before its own environment.
	Secrets map[string]string
	// Asker asks the client about calls whose risk class the policy
	// decides "prompt": the session's policy.Options.Asker. The policy
	// asks only about prompts, so nothing it denies (nor anything the
	// sandbox forbids, which no answer reaches) can be allowed here.
	Asker policy.Asker
	// Confirm asks the client what odek would ask an operator at a
	// terminal before a turn runs: a project MCP server, an MCP tool, a
	// project hook (request_permission; "always" is for the session). The
	// run side's approval Gate takes it as its Confirmer, ephemeral.
	Confirm approval.Confirmer
	// Elicit forwards an MCP server's form elicitation to the client
	// (mcpclient.Options.Elicit); nil when the client declared no form
	// elicitation.
	Elicit mcpclient.Elicitor
}

// Session is one open odek session. Its methods other than Turn may be
// called while a turn runs; Turn is never called twice at once.
type Session interface {
	// ID is the odek session's id: the ACP sessionId.
	ID() string
	// History is the conversation so far (session/load replays it).
	History() []llm.Message
	// ContextWindow is the model's context size in tokens; 0 = unknown.
	ContextWindow() int
	// Plan is the plan tool's current steps (nil: no plan).
	Plan() []plan.Step
	// Turn runs the loop on the history with prompt as the next user
	// message, under odek's budgets, sandbox, policy and events, until an
	// answer, a limit, an error or ctx's end: session/cancel or close
	// (cause ErrCancelled), the client gone (ErrClientGone), Serve told to
	// stop (ErrStopped); each is a context.Canceled, so the loop reports
	// the turn interrupted, as after Ctrl-C. The run side wires obs into
	// that run:
	// obs as one more events.Sink of the run's emitter, obs.Reply as
	// loop.Options.OnReply and obs.Batch as loop.Options.AfterBatch (after
	// the session is saved). Turn returns after the emitter is closed, so
	// every event of the turn reached obs. The error is non-nil only when
	// the turn could not run at all (setup); a run that ended badly is a
	// result with its termination.
	Turn(ctx context.Context, prompt string, obs Observer) (*TurnResult, error)
	// Close releases the session (its MCP servers); it saves nothing new.
	Close(ctx context.Context) error
}

// Observer hears one turn as it runs. Write (events) is called on the
// emitter's goroutine, Reply and Batch on the loop's; none of them blocks.
type Observer interface {
	events.Sink
	// Reply hears each model reply, its tool calls with their run-unique
	// ids, before they run (loop.Options.OnReply).
	Reply(iteration int, reply llm.Message)
	// Batch hears the history after each tool batch (loop.Options.AfterBatch).
	Batch(history []llm.Message)
}

// TurnResult is how a turn ended, in the run report's terms.
type TurnResult struct {
	// Termination is the report's termination_reason ("completed",
	// "max_iterations", "execution_budget:cost_usd", "interrupted", ...).
	Termination string
	// Answer is the run's answer; one no reply carried (the summary at
	// the iteration cap) is sent as the turn's last message.
	Answer string
	// ErrorClass and Error describe a failed turn, as the report does.
	ErrorClass, Error string
	// Report is the run report (odek.run-report/v1), sent in _meta.
	Report map[string]any
	// Usage is what this turn spent; CostUSD its cost when Priced.
	Usage   budget.Usage
	CostUSD float64
	Priced  bool
}

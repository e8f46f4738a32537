package acp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// Options configure an agent.
type Options struct {
	// Runner opens sessions and runs turns (required).
	Runner Runner
	// Version is agentInfo.version; "" = "dev".
	Version string
	// Log receives diagnostics: the SDK's (a line that is not JSON, a
	// connection closed) and the agent's (a cancel for no session). nil
	// discards them. The protocol's stdout is never written to but by the
	// connection.
	Log *slog.Logger
}

// agent is one ACP connection's state.
type agent struct {
	o    Options
	conn *sdk.Connection
	box  *outbox
	base context.Context // ends when Serve ends: every handler's and turn's ctx derives from it

	mu          sync.Mutex
	initialized bool
	caps        sdk.ClientCapabilities
	sessions    map[string]*session
	closing     bool
	handlers    sync.WaitGroup
}

// Serve speaks ACP v1 as the agent on in (the client's requests) and out
// (responses and updates) until in ends or ctx is done. Before it returns
// it cancels every running turn (cause ErrClientGone, or ErrStopped when
// ctx ended), waits for their
// handlers, closes every session and stops its own writer. When ctx ends
// first, the SDK's reader stays blocked on in until the caller closes it.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	if o.Runner == nil {
		return errors.New("acp: Options.Runner is required")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	base, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	a := &agent{o: o, base: base, sessions: map[string]*session{}}
	// The SDK's reader starts at once and its logger is a plain field: no
	// byte is read until the connection and the agent are complete.
	gate := &gatedReader{r: in, ready: make(chan struct{})}
	a.conn = sdk.NewConnection(a.handle, out, gate)
	a.conn.SetLogger(o.Log)
	a.box = newOutbox(func(n sdk.SessionNotification) error {
		return a.conn.SendNotification(context.Background(), sdk.ClientMethodSessionUpdate, n)
	})
	close(gate.ready)
	var err error
	why := ErrClientGone
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
		err, why = context.Cause(ctx), ErrStopped
	}
	cancel(why)
	a.shutdown()
	return err
}

// gatedReader reads nothing until ready is closed.
type gatedReader struct {
	r     io.Reader
	ready chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}

// shutdown refuses new requests, waits for the running handlers (their
// turns end with base), closes the sessions and the writer.
func (a *agent) shutdown() {
	a.mu.Lock()
	a.closing = true
	a.mu.Unlock()
	a.handlers.Wait()
	a.mu.Lock()
	all := a.sessions
	a.sessions = map[string]*session{}
	a.mu.Unlock()
	for _, s := range all {
		s.close(context.WithoutCancel(a.base), context.Cause(a.base))
	}
	a.box.close()
}

// handle is the connection's one method handler. Each request runs on its
// own goroutine (the SDK's); notifications run in order on one.
func (a *agent) handle(ctx context.Context, method string, params json.RawMessage) (any, *sdk.RequestError) {
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		return nil, sdk.NewInternalError(map[string]any{"error": "the agent is shutting down"})
	}
	a.handlers.Add(1)
	a.mu.Unlock()
	defer a.handlers.Done()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(a.base, func() { cancel(context.Cause(a.base)) })
	defer stop()

	h, ok := methods[method]
	if !ok {
		return nil, sdk.NewMethodNotFound(method)
	}
	if method != sdk.AgentMethodInitialize && !a.isInitialized() {
		return nil, requestError(ErrNotInitialized)
	}
	res, err := h(a, ctx, params)
	if err != nil {
		return nil, requestError(err)
	}
	return res, nil
}

// handler decodes one method's params and answers it.
type handler func(a *agent, ctx context.Context, params json.RawMessage) (any, error)

// methods are the ACP methods odek answers; any other is "Method not
// found" (session modes, config options, models, terminals, and the
// unstable extensions).
var methods = map[string]handler{
	sdk.AgentMethodInitialize:    decoded((*agent).initialize),
	sdk.AgentMethodAuthenticate:  decoded((*agent).authenticate),
	sdk.AgentMethodSessionNew:    decoded((*agent).newSession),
	sdk.AgentMethodSessionLoad:   decoded((*agent).loadSession),
	sdk.AgentMethodSessionResume: decoded((*agent).resumeSession),
	sdk.AgentMethodSessionList:   decoded((*agent).listSessions),
	sdk.AgentMethodSessionClose:  decoded((*agent).closeSession),
	sdk.AgentMethodSessionPrompt: decoded((*agent).prompt),
	sdk.AgentMethodSessionCancel: decoded((*agent).cancel),
}

// validator is the SDK's check of a request's required fields.
type validator interface{ Validate() error }

// decoded makes a handler of a typed method: params decoded and checked
// as the SDK's own dispatch does (Invalid params on failure).
func decoded[P any, PP interface {
	*P
	validator
}, R any](f func(*agent, context.Context, P) (R, error)) handler {
	return func(a *agent, ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if len(raw) == 0 {
			raw = json.RawMessage("{}")
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		if err := PP(&p).Validate(); err != nil {
			return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return f(a, ctx, p)
	}
}

func (a *agent) isInitialized() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.initialized
}

// initialize answers with ACP v1 (the one version odek speaks) and what
// odek does: load, list, resume and close sessions; MCP servers over
// stdio and HTTP; text and embedded context in prompts. No authentication.
func (a *agent) initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.initialized, a.caps = true, p.ClientCapabilities
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "odek", Version: a.o.Version},
		AuthMethods:     []sdk.AuthMethod{},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			McpCapabilities:    sdk.McpCapabilities{Http: true},
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List: &sdk.SessionListCapabilities{}, Resume: &sdk.SessionResumeCapabilities{},
				Close: &sdk.SessionCloseCapabilities{},
			},
		},
	}, nil
}

// authenticate: odek advertises no method, so there is nothing to pick.
func (a *agent) authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, sdk.NewInvalidParams(map[string]any{"error": "odek takes no authentication method: " + string(p.MethodId)})
}

// formElicitation reports whether the client takes form elicitations.
func (a *agent) formElicitation() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps.Elicitation != nil && a.caps.Elicitation.Form != nil
}

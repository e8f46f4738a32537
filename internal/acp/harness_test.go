package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"

	"github.com/odek-run/odek/internal/llm"
	"github.com/odek-run/odek/internal/plan"
	store "github.com/odek-run/odek/internal/session"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeRunner is the run side for tests: each session's turns are
// scripted by turn, which gets the session's OpenRequest.
type fakeRunner struct {
	turn    func(ctx context.Context, s *fakeSession, prompt string, obs Observer) (*TurnResult, error)
	history []llm.Message // what a loaded session holds
	saved   []store.Summary
	openErr error

	mu       sync.Mutex
	opened   []OpenRequest
	sessions []*fakeSession
}

func (r *fakeRunner) Open(_ context.Context, req OpenRequest) (Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opened = append(r.opened, req)
	if r.openErr != nil {
		return nil, r.openErr
	}
	id := req.ID
	if id == "" {
		id = store.NewID(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC))
	} else if id == "20261206-"+"00000000000000000000000000000000" {
		return nil, ErrUnknownSession
	}
	s := &fakeSession{r: r, id: id, req: req, closed: make(chan struct{})}
	if req.ID != "" {
		s.history = r.history
	}
	r.sessions = append(r.sessions, s)
	return s, nil
}

func (r *fakeRunner) List(context.Context) ([]store.Summary, error) { return r.saved, nil }

func (r *fakeRunner) session(i int) *fakeSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[i]
}

func (r *fakeRunner) lastOpen() OpenRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.opened[len(r.opened)-1]
}

// fakeSession is one session of fakeRunner.
type fakeSession struct {
	r       *fakeRunner
	id      string
	req     OpenRequest
	history []llm.Message
	steps   []plan.Step

	mu        sync.Mutex
	turnCause error // why the last turn's ctx ended
	closeOnce sync.Once
	closed    chan struct{}
}

func (s *fakeSession) ID() string             { return s.id }
func (s *fakeSession) History() []llm.Message { return s.history }
func (s *fakeSession) ContextWindow() int     { return 128000 }
func (s *fakeSession) Plan() []plan.Step      { s.mu.Lock(); defer s.mu.Unlock(); return s.steps }
func (s *fakeSession) Close(context.Context) error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

func (s *fakeSession) Turn(ctx context.Context, prompt string, obs Observer) (*TurnResult, error) {
	res, err := s.r.turn(ctx, s, prompt, obs)
	s.mu.Lock()
	s.turnCause = context.Cause(ctx)
	s.mu.Unlock()
	return res, err
}

func (s *fakeSession) cause() error { s.mu.Lock(); defer s.mu.Unlock(); return s.turnCause }

// answerDismiss makes testClient answer "cancelled" at once.
const answerDismiss = "dismiss"

// testClient is the client side: it records updates and answers
// permission requests with answer (an option id, or "" to wait for the
// request's end and answer cancelled).
type testClient struct {
	answer  string
	elicit  func(sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse
	asked   chan sdk.RequestPermissionRequest // each request, when set
	updated chan struct{}                     // cap 1: an update came, when set
	mu      sync.Mutex
	updates []sdk.SessionNotification
	perms   []sdk.RequestPermissionRequest
	elicits []sdk.UnstableCreateElicitationRequest
}

func (c *testClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	c.mu.Unlock()
	if c.asked != nil {
		c.asked <- p
	}
	if c.answer == answerDismiss {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	if c.answer == "" {
		<-ctx.Done()
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(c.answer))}, nil
}

func (c *testClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	if c.updated != nil {
		select {
		case c.updated <- struct{}{}:
		default:
		}
	}
	return nil
}

func (c *testClient) UnstableCreateElicitation(_ context.Context, p sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	c.elicits = append(c.elicits, p)
	c.mu.Unlock()
	return c.elicit(p), nil
}

var errNotOffered = errors.New("the test client offers no file system or terminal")

func (c *testClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNotOffered
}
func (c *testClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNotOffered
}
func (c *testClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}
func (c *testClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}
func (c *testClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}
func (c *testClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}
func (c *testClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}

func (c *testClient) got() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]sdk.SessionUpdate, len(c.updates))
	for i, n := range c.updates {
		out[i] = n.Update
	}
	return out
}

func (c *testClient) permissions() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.RequestPermissionRequest(nil), c.perms...)
}

// peer is an agent served over two OS pipes and the SDK's client side on
// their other ends.
type peer struct {
	conn    *sdk.ClientSideConnection
	client  *testClient
	served  chan error
	toAgent *os.File // the client's write end: closing it is the client leaving
	fromAg  *os.File
	cancel  context.CancelFunc
}

// serve starts the agent with runner and connects client to it; the test's
// cleanup makes the client leave and waits for Serve to return.
func serve(t *testing.T, runner Runner, client *testClient) *peer {
	t.Helper()
	inR, inW, err := os.Pipe() // client → agent
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // agent → client
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &peer{client: client, served: make(chan error, 1), toAgent: inW, fromAg: outR, cancel: cancel}
	go func() {
		err := Serve(ctx, Options{Runner: runner, Version: "test"}, inR, outW)
		inR.Close()
		outW.Close()
		p.served <- err
	}()
	gate := &gatedReader{r: outR, ready: make(chan struct{})}
	p.conn = sdk.NewClientSideConnection(client, inW, gate)
	p.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	close(gate.ready)
	t.Cleanup(func() { p.leave(t) })
	return p
}

// leave closes the client's ends and waits for Serve to return.
func (p *peer) leave(t *testing.T) {
	t.Helper()
	p.toAgent.Close()
	select {
	case <-p.served:
		p.served <- nil // a second leave returns at once
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the client left")
	}
	p.fromAg.Close()
	<-p.conn.Done()
	p.cancel()
}

// start initializes and opens one session.
func (p *peer) start(t *testing.T, caps sdk.ClientCapabilities, servers ...sdk.McpServer) sdk.SessionId {
	t.Helper()
	ctx := context.Background()
	if _, err := p.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	if servers == nil {
		servers = []sdk.McpServer{}
	}
	resp, err := p.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/work/proj", McpServers: servers})
	if err != nil {
		t.Fatal(err)
	}
	return resp.SessionId
}

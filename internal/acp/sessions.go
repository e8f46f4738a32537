package acp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// session is one open session of the connection.
type session struct {
	run Session
	cwd string

	mu     sync.Mutex
	cancel context.CancelCauseFunc // the running turn's; nil when idle
	ended  chan struct{}           // closed when the running turn ends
	cost   float64                 // what the session's turns cost so far (priced ones)
}

// begin marks a turn running; false when one already runs.
func (s *session) begin(cancel context.CancelCauseFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return false
	}
	s.cancel, s.ended = cancel, make(chan struct{})
	return true
}

func (s *session) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel(nil)
	close(s.ended)
	s.cancel, s.ended = nil, nil
}

// stop cancels the running turn, if any, with cause, and returns a
// channel closed when it has ended.
func (s *session) stop(cause error) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	s.cancel(cause)
	return s.ended
}

// close stops the turn (with cause) and releases the session.
func (s *session) close(ctx context.Context, cause error) {
	<-s.stop(cause)
	_ = s.run.Close(ctx)
}

// lookup finds an open session.
func (a *agent) lookup(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownSession, string(id))
	}
	return s, nil
}

// open opens a session through the Runner with the client's servers, the
// asker and (when the client takes it) the elicitor, and registers it. A
// session already open under the same id is closed first, unless a turn
// runs in it.
func (a *agent) open(ctx context.Context, id, cwd string, servers []sdk.McpServer) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path", cwd)})
	}
	if id != "" {
		if err := a.release(ctx, id); err != nil {
			return nil, err
		}
	}
	conv, secrets, err := convertServers(servers)
	if err != nil {
		return nil, err
	}
	s := &session{cwd: filepath.Clean(cwd)}
	ref := &sessionRef{}
	ask := &asker{sid: ref.id, cwd: s.cwd, box: a.box, call: a.requestPermission}
	req := OpenRequest{ID: id, Cwd: s.cwd, MCPServers: conv, Secrets: secrets, Asker: ask,
		Confirm: &approver{sid: ref.id, box: a.box, call: a.requestPermission}}
	if a.formElicitation() {
		req.Elicit = &elicitor{sid: ref.id, box: a.box, call: a.createElicitation}
	}
	run, err := a.o.Runner.Open(ctx, req)
	if err != nil {
		return nil, err
	}
	s.run = run
	ref.set(sdk.SessionId(run.ID()))
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		_ = run.Close(context.WithoutCancel(ctx))
		return nil, errors.New("the agent is shutting down")
	}
	a.sessions[run.ID()] = s
	a.mu.Unlock()
	return s, nil
}

// release closes an open session id before it is opened again; a
// session with a turn running stays (ErrBusy).
func (a *agent) release(ctx context.Context, id string) error {
	a.mu.Lock()
	s, ok := a.sessions[id]
	if ok {
		s.mu.Lock()
		busy := s.cancel != nil
		s.mu.Unlock()
		if busy {
			a.mu.Unlock()
			return ErrBusy
		}
		delete(a.sessions, id)
	}
	a.mu.Unlock()
	if ok {
		s.close(ctx, ErrCancelled)
	}
	return nil
}

// sessionRef is a session's id for the asker and the elicitor, which are
// made before the Runner names the session.
type sessionRef struct {
	mu  sync.Mutex
	sid sdk.SessionId
}

func (r *sessionRef) set(id sdk.SessionId) { r.mu.Lock(); r.sid = id; r.mu.Unlock() }
func (r *sessionRef) id() sdk.SessionId    { r.mu.Lock(); defer r.mu.Unlock(); return r.sid }

func (a *agent) requestPermission(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.SendRequest[sdk.RequestPermissionResponse](a.conn, ctx, sdk.ClientMethodSessionRequestPermission, req)
}

func (a *agent) createElicitation(ctx context.Context, req sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	return sdk.SendRequest[sdk.UnstableCreateElicitationResponse](a.conn, ctx, sdk.ClientMethodElicitationCreate, req)
}

func (a *agent) newSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s, err := a.open(ctx, "", p.Cwd, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.run.ID())}, nil
}

// loadSession opens a saved session and replays its conversation before
// it answers.
func (a *agent) loadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	s, err := a.open(ctx, string(p.SessionId), p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	replay(a.box, p.SessionId, s.cwd, s.run.History())
	return sdk.LoadSessionResponse{}, a.box.flush(ctx)
}

// resumeSession opens a saved session without replaying it.
func (a *agent) resumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	_, err := a.open(ctx, string(p.SessionId), p.Cwd, p.McpServers)
	return sdk.ResumeSessionResponse{}, err
}

// listSessions lists odek's saved sessions, those of p.Cwd only when it
// is given; all in one page.
func (a *agent) listSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	all, err := a.o.Runner.List(ctx)
	if err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, s := range all {
		if p.Cwd != nil && filepath.Clean(*p.Cwd) != s.Dir {
			continue
		}
		title, updated := s.Title, s.UpdatedAt.UTC().Format(time.RFC3339)
		out.Sessions = append(out.Sessions, sdk.SessionInfo{SessionId: sdk.SessionId(s.ID), Cwd: s.Dir, Title: &title, UpdatedAt: &updated,
			Meta: map[string]any{"odek": map[string]any{"turns": s.Turns}}})
	}
	return out, nil
}

// closeSession cancels the session's turn, waits for it, and releases it.
func (a *agent) closeSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	a.mu.Lock()
	s, ok := a.sessions[string(p.SessionId)]
	delete(a.sessions, string(p.SessionId))
	a.mu.Unlock()
	if !ok {
		return sdk.CloseSessionResponse{}, fmt.Errorf("%w %q", ErrUnknownSession, string(p.SessionId))
	}
	s.close(ctx, ErrCancelled)
	return sdk.CloseSessionResponse{}, nil
}

// cancel stops the session's running turn (as Ctrl-C does a run); its
// prompt then answers "cancelled". A cancel with nothing running is a no-op.
func (a *agent) cancel(_ context.Context, p sdk.CancelNotification) (struct{}, error) {
	s, err := a.lookup(p.SessionId)
	if err != nil {
		a.o.Log.Warn("session/cancel", "error", err)
		return struct{}{}, nil
	}
	s.stop(ErrCancelled)
	return struct{}{}, nil
}

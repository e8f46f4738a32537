package acp

import (
	"context"
	"errors"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/odek-run/odek/internal/llm"
)

// blockingTurn shows one running tool call, tells started, and waits for
// its context to end, as a long command does; it answers as the run side
// does after an interrupt.
func blockingTurn(started chan<- struct{}) func(context.Context, *fakeSession, string, Observer) (*TurnResult, error) {
	return func(ctx context.Context, _ *fakeSession, _ string, obs Observer) (*TurnResult, error) {
		obs.Reply(1, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Function: llm.FunctionCall{Name: "shell", Arguments: `{"command":"sleep 600"}`}}}})
		close(started)
		<-ctx.Done()
		return &TurnResult{Termination: "interrupted", ErrorClass: "context_canceled"}, nil
	}
}

// session/cancel mid-tool stops the turn with ErrCancelled as its cause,
// and the prompt answers cancelled.
func TestCancelMidTool(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	r := &fakeRunner{turn: blockingTurn(started)}
	p := serve(t, r, &testClient{})
	sid := p.start(t, sdk.ClientCapabilities{})
	done := make(chan struct{})
	var resp sdk.PromptResponse
	var err error
	go func() {
		defer close(done)
		resp, err = prompt(t, p, sid, "run it")
	}()
	<-started
	if err := p.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the turn did not end after session/cancel")
	}
	if err != nil || resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v; want stop reason cancelled", resp, err)
	}
	if c := r.session(0).cause(); !errors.Is(c, ErrCancelled) {
		t.Errorf("turn's cause %v, want ErrCancelled", c)
	}
}

// A cancel while the client is asked about a call ends the question: the
// call is denied with the turn's cause and the prompt answers cancelled.
func TestCancelDuringPermission(t *testing.T) {
	t.Parallel()
	sc := &scripted{text: "ok", calls: []call{{id: "c1", tool: "shell", args: `{"command":"make"}`, shell: "make"}}}
	r := &fakeRunner{}
	r.turn = sc.turn(t)
	client := &testClient{asked: make(chan sdk.RequestPermissionRequest, 1)} // answers only when cancelled
	p := serve(t, r, client)
	sid := p.start(t, sdk.ClientCapabilities{})
	done := make(chan struct{})
	var resp sdk.PromptResponse
	var err error
	go func() {
		defer close(done)
		resp, err = prompt(t, p, sid, "build")
	}()
	<-client.asked
	if err := p.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the turn did not end after session/cancel")
	}
	if err != nil || resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v; want cancelled", resp, err)
	}
}

// A client that leaves mid-turn: the turn ends (ErrClientGone), the
// session is closed and Serve returns; goleak (TestMain) checks nothing
// is left running.
func TestClientVanishesMidTurn(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	r := &fakeRunner{turn: blockingTurn(started)}
	p := serve(t, r, &testClient{})
	sid := p.start(t, sdk.ClientCapabilities{})
	go func() { _, _ = prompt(t, p, sid, "run it") }()
	<-started
	p.leave(t)
	s := r.session(0)
	select {
	case <-s.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the session was not closed")
	}
	if c := s.cause(); c == nil { // the SDK's "peer connection closed" or ErrClientGone, whichever came first
		t.Error("the turn's context did not end")
	}
}

// A second prompt while one runs is refused; the first goes on and ends
// normally.
func TestSecondPromptIsRefused(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}), make(chan struct{})
	r := &fakeRunner{turn: func(ctx context.Context, _ *fakeSession, _ string, _ Observer) (*TurnResult, error) {
		close(started)
		<-release
		return &TurnResult{Termination: "completed"}, nil
	}}
	p := serve(t, r, &testClient{})
	sid := p.start(t, sdk.ClientCapabilities{})
	done := make(chan error, 1)
	go func() {
		resp, err := prompt(t, p, sid, "first")
		if err == nil && resp.StopReason != sdk.StopReasonEndTurn {
			err = errors.New("stop reason " + string(resp.StopReason))
		}
		done <- err
	}()
	<-started
	_, err := prompt(t, p, sid, "second")
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32600 {
		t.Errorf("second prompt: %v, want Invalid request", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("first prompt: %v, want end_turn", err)
	}
}

// Serve's context ending mid-turn (odek told to stop) cancels the turn with
// ErrStopped, closes the session and returns, with the client still
// connected.
func TestServeContextEndsTurn(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	r := &fakeRunner{turn: blockingTurn(started)}
	p := serve(t, r, &testClient{})
	sid := p.start(t, sdk.ClientCapabilities{})
	go func() { _, _ = prompt(t, p, sid, "run it") }()
	<-started
	p.cancel()
	select {
	case err := <-p.served:
		p.served <- err // for the cleanup's leave
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve returned %v, want the context's end", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when its context ended")
	}
	if c := r.session(0).cause(); !errors.Is(c, ErrStopped) {
		t.Errorf("turn's cause %v, want ErrStopped", c)
	}
	if !closed(r.session(0)) {
		t.Error("the session was not closed")
	}
}

// session/close during a turn cancels it (the prompt answers cancelled)
// and releases the session before it answers.
func TestCloseDuringTurn(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	r := &fakeRunner{turn: blockingTurn(started)}
	p := serve(t, r, &testClient{})
	sid := p.start(t, sdk.ClientCapabilities{})
	stop := make(chan sdk.StopReason, 1)
	go func() {
		resp, _ := prompt(t, p, sid, "run it")
		stop <- resp.StopReason
	}()
	<-started
	if _, err := p.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if !closed(r.session(0)) {
		t.Error("the session was not released before session/close answered")
	}
	if got := <-stop; got != sdk.StopReasonCancelled {
		t.Errorf("prompt stop reason %q, want cancelled", got)
	}
	if c := r.session(0).cause(); !errors.Is(c, ErrCancelled) {
		t.Errorf("turn's cause %v, want ErrCancelled", c)
	}
}

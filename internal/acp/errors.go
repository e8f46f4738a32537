package acp

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"
)

// Errors of the agent. Each becomes the JSON-RPC error the client sees
// (requestError).
var (
	// ErrUnknownSession: the sessionId names no session open on this
	// connection (prompt, cancel) or no saved odek session (load, resume).
	ErrUnknownSession = errors.New("unknown session")
	// ErrBusy: a prompt arrived while the session's turn still runs.
	ErrBusy = errors.New("a prompt is already running in this session")
	// ErrNotInitialized: a session method came before initialize.
	ErrNotInitialized = errors.New("initialize first")
	// ErrUnsupportedContent: a prompt held content odek does not take
	// (images, audio: initialize does not advertise them).
	ErrUnsupportedContent = errors.New("unsupported prompt content")
	// ErrBadServer: a client MCP server odek cannot run as given.
	ErrBadServer = errors.New("unsupported MCP server")
	// ErrCancelled is the cause of a turn's context after session/cancel
	// (or session/close). Like ErrClientGone and ErrStopped it is a
	// context.Canceled: the loop reports the turn interrupted, as Ctrl-C.
	ErrCancelled error = &stopCause{"cancelled by the client"}
	// ErrClientGone is the cause of a turn's context when the client's
	// input ended mid-turn.
	ErrClientGone error = &stopCause{"the client went away"}
	// ErrStopped is the cause of a turn's context when Serve's context
	// ended (odek was told to stop).
	ErrStopped error = &stopCause{"the agent was stopped"}
)

// stopCause is why the agent ended a turn; it is a context.Canceled.
type stopCause struct{ msg string }

func (e *stopCause) Error() string { return e.msg }
func (e *stopCause) Unwrap() error { return context.Canceled }

// codeResourceNotFound is ACP's error code for an unknown resource (a
// session).
const codeResourceNotFound = -32002

// requestError maps an error to the JSON-RPC error the client gets.
func requestError(err error) *sdk.RequestError {
	var re *sdk.RequestError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		return re
	case errors.Is(err, ErrUnknownSession):
		return &sdk.RequestError{Code: codeResourceNotFound, Message: "Resource not found", Data: map[string]any{"error": err.Error()}}
	case errors.Is(err, ErrBusy), errors.Is(err, ErrNotInitialized):
		return sdk.NewInvalidRequest(map[string]any{"error": err.Error()})
	case errors.Is(err, ErrUnsupportedContent), errors.Is(err, ErrBadServer):
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return sdk.NewInternalError(map[string]any{"error": err.Error()})
}

// errPermission wraps a permission request the client failed to answer.
var errPermission = errors.New("the client did not answer the permission request")

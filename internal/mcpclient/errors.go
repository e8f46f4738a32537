package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/odek-run/odek/internal/errclass"
)

// Error classes reported by ErrorClass, matching the odek.event/v1 vocabulary.
const (
	// classMCP marks failures that are the server's fault (bad answers, crashes, limits).
	classMCP = errclass.MCPError
	// classDeadline marks a request that ran out of time.
	classDeadline = errclass.DeadlineExceeded
	// classCanceled marks a request abandoned because the caller cancelled it.
	classCanceled = errclass.ContextCanceled
	// classSetup marks configuration and startup problems on our side.
	classSetup = errclass.SetupError
)

var (
	// errClosed is returned for calls made after Close or after the connection died.
	errClosed = errors.New("connection closed")
	// errNotDiscovered is returned by calls made before a successful Discover.
	errNotDiscovered = errors.New("not initialized: call Discover first")
)

// opError is every failure the client returns: it names the server and the
// operation ("initialize", "tools/list", "tool <t>", ...) and wraps the cause.
type opError struct {
	Server string
	Op     string
	Err    error
	class  string
}

func (e *opError) Error() string { return "mcpclient " + e.Server + ": " + e.Op + ": " + e.Err.Error() }

// Unwrap exposes the cause to errors.Is/As (e.g. context.DeadlineExceeded).
func (e *opError) Unwrap() error { return e.Err }

// ErrorClass returns a stable low-cardinality class for events.
func (e *opError) ErrorClass() string { return e.class }

func newError(server, op, class string, err error) *opError {
	return &opError{Server: server, Op: op, Err: err, class: class}
}

// ResponseTooLargeError reports a single inbound message over max_response_bytes.
// The connection is closed when it happens: the rest of the line is never read.
type ResponseTooLargeError struct {
	Limit    int64
	Observed int64 // bytes seen before reading stopped; at least Limit+1
	HTTP     bool  // worded for an HTTP body rather than a stdio line
}

func (e *ResponseTooLargeError) Error() string {
	if e.HTTP {
		return fmt.Sprintf("response exceeds max_response_bytes=%d (observed at least %d bytes); connection closed", e.Limit, e.Observed)
	}
	return fmt.Sprintf("response line exceeded configured max_response_bytes limit of %d bytes (observed at least %d bytes); connection closed", e.Limit, e.Observed)
}

// discoveryLimitError reports a tools/list answer past one of the
// discoveryLimits; the server is rejected as a whole.
type discoveryLimitError struct {
	Bound    string // one of the Bound* names
	Tool     string // the tool concerned, "" for bounds on the whole list
	Limit    int64
	Observed int64 // for tools_list_bytes: at least this many (reading stopped there)
}

func (e *discoveryLimitError) Error() string {
	what := "tools/list"
	if e.Bound == boundDiscoverBytes {
		what = "server/discover result"
	}
	if e.Tool != "" {
		what = fmt.Sprintf("tool %q", e.Tool)
	}
	qual := ""
	if e.Bound == boundBytes || e.Bound == boundDiscoverBytes {
		qual = "at least "
	}
	return fmt.Sprintf("%s exceeds the discovery bound %s=%d (observed %s%d); server rejected", what, e.Bound, e.Limit, qual, e.Observed)
}

// ExitError reports a server process that ended while odek still needed it.
type ExitError struct {
	Status     string // e.g. "exit status 3" or "signal: killed"
	StderrTail string // last few KiB the server wrote to stderr
}

func (e *ExitError) Error() string {
	msg := "server exited (" + e.Status + ")"
	if e.StderrTail != "" {
		msg += "; stderr tail: " + e.StderrTail
	}
	return msg
}

// RPCError is a JSON-RPC error answer from the server.
type RPCError struct {
	Code    int64
	Message string
	// Supported is the version list of an UnsupportedProtocolVersionError
	// (-32022), as the server sent it.
	Supported []string
}

func (e *RPCError) Error() string {
	msg := fmt.Sprintf("MCP error %d: %s", e.Code, e.Message)
	if len(e.Supported) > 0 {
		msg += fmt.Sprintf(" (server supports %s; odek speaks %s)", quoteVersions(e.Supported), odekVersions())
	}
	return msg
}

// ToolError is a tools/call result with isError:true. Text is already capped
// and wrapped as untrusted content.
type ToolError struct{ Text string }

func (e *ToolError) Error() string { return e.Text }

// timeoutError is a request that exceeded its deadline. errors.Is(err,
// context.DeadlineExceeded) holds.
type timeoutError struct {
	Timeout time.Duration
	// Bound names the limit that ran out: "" for timeout_seconds (or the
	// caller's deadline), the deadline of the whole call; "idle_timeout_seconds"
	// for a call that heard nothing, not even progress, for that long.
	Bound string
}

func (e *timeoutError) Error() string {
	if e.Bound != "" {
		return fmt.Sprintf("no progress within %s (%s); request cancelled, server kept running", e.Timeout, e.Bound)
	}
	return fmt.Sprintf("no response within %s (timeout); request cancelled, server kept running", e.Timeout)
}

// Unwrap makes errors.Is(err, context.DeadlineExceeded) work.
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

// hTTPStatusError is a non-2xx answer from a Streamable HTTP server.
type hTTPStatusError struct {
	Code int
	Body string // at most 512 characters
	// RPCCode is the code of a JSON-RPC error in the body, if it held one.
	RPCCode *int64
	// Supported is -32022's version list, if the body held that error.
	Supported []string
}

func (e *hTTPStatusError) Error() string {
	msg := fmt.Sprintf("http %d: %s", e.Code, e.Body)
	if len(e.Supported) > 0 {
		msg += fmt.Sprintf(" (server supports %s; odek speaks %s)", quoteVersions(e.Supported), odekVersions())
	}
	return msg
}

// requestError is a transport failure that concerns one request only (an HTTP
// status, a broken body); the connection itself stays usable.
type requestError struct {
	id  int64
	err error
}

func (e *requestError) Error() string { return e.err.Error() }

// Sentinels carried by SetupError, for callers that branch with errors.Is.
var (
	// errShadowsBuiltin marks a server tool whose registered
	// <server>__<tool> name is a built-in tool's.
	errShadowsBuiltin = errors.New("tool shadows a built-in tool")
	// errToolCollision marks two tools that would register under one name.
	errToolCollision = errors.New("tool name collision")
	// errNoGate marks a Start without an approval Gate.
	errNoGate = errors.New("no approval gate")
)

// SetupError is every failure of Start: a server that is not approved, fails
// to start, fails discovery, or offers tools that cannot be registered. The
// CLI maps it to exit code 3; ErrorClass reports "setup_error".
type SetupError struct {
	// Server is the server concerned, "" when the failure is not about one.
	Server string
	msg    string
	err    error
}

func (e *SetupError) Error() string { return e.msg }

// Unwrap exposes the cause (a sentinel above, the Gate's or the client's error).
func (e *SetupError) Unwrap() error { return e.err }

// ErrorClass returns "setup_error".
func (e *SetupError) ErrorClass() string { return classSetup }

func setupErr(server, msg string, cause error) *SetupError {
	return &SetupError{Server: server, msg: msg, err: cause}
}

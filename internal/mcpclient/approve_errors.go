package mcpclient

import "errors"

// Sentinels carried by SetupError, for callers that branch with errors.Is.
var (
	// ErrNotApproved marks a server or tool that has no approval grant.
	ErrNotApproved = errors.New("mcp approval missing or declined")
	// ErrShadowsBuiltin marks a server tool named like a built-in tool.
	ErrShadowsBuiltin = errors.New("tool shadows a built-in tool")
	// ErrToolCollision marks two tools that would register under one name.
	ErrToolCollision = errors.New("tool name collision")
	// ErrApprovalStore marks an approvals file that cannot be read or written.
	ErrApprovalStore = errors.New("mcp approval store error")
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

// Unwrap exposes the cause (a sentinel above, or the client's error).
func (e *SetupError) Unwrap() error { return e.err }

// ErrorClass returns "setup_error".
func (e *SetupError) ErrorClass() string { return ClassSetup }

func setupErr(server, msg string, cause error) *SetupError {
	return &SetupError{Server: server, msg: msg, err: cause}
}

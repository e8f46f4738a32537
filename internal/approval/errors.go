package approval

import (
	"errors"

	"github.com/odek-run/odek/internal/errclass"
)

// Sentinels carried by *Error, for callers that branch with errors.Is.
var (
	// ErrNotApproved marks a server or tool that has no approval grant.
	ErrNotApproved = errors.New("mcp approval missing or declined")
	// ErrStore marks an approvals file that cannot be read or written.
	ErrStore = errors.New("mcp approval store error")
)

// Error is every refusal and failure of the Gate. Its text is the message for
// the operator; the CLI maps it to exit code 3 (ErrorClass "setup_error").
type Error struct {
	// Server is the server concerned, "" when the failure is not about one.
	Server string
	msg    string
	err    error
}

func (e *Error) Error() string { return e.msg }

// Unwrap exposes the cause (a sentinel above, or the store's or prompt's error).
func (e *Error) Unwrap() error { return e.err }

// ErrorClass returns "setup_error".
func (e *Error) ErrorClass() string { return errclass.SetupError }

func newErr(server, msg string, cause error) *Error {
	return &Error{Server: server, msg: msg, err: cause}
}

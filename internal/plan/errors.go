package plan

import (
	"errors"
	"fmt"
)

// Error is a rejected plan call; the model sees its text as the tool's error.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func errorf(format string, args ...any) error {
	return &Error{msg: "plan: " + fmt.Sprintf(format, args...)}
}

// ErrNotAPlan is returned by Restore for a message that is not a complete
// rendered plan (not a plan at all, unparseable, omitted or truncated steps).
var ErrNotAPlan = errors.New("plan: not a complete plan message")

package builtin

import (
	"errors"
	"fmt"
	"time"

	"github.com/odek-run/odek/internal/risk"
)

// Argument and file errors the model sees.
var (
	ErrPathRequired    = errors.New("path is required")
	ErrNotRegular      = errors.New("not a regular file")
	ErrOldEmpty        = errors.New("old must not be empty")
	ErrCommandRequired = errors.New("command is required")
	ErrPatternRequired = errors.New("pattern is required")
)

// ChangedError is a call whose risk rose between approval and action: the
// path now resolves somewhere else (a symlink was swapped in).
type ChangedError struct {
	Tool     string
	Approved risk.Class
	Now      risk.Assessment
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s: the call changed after it was approved: it was %s, it is now %s (%s)",
		e.Tool, e.Approved, e.Now.Class, e.Now.Reason)
}

// TooLargeError is an input over a cap.
type TooLargeError struct {
	What       string
	Size, Max  int64
	Suggestion string
}

func (e *TooLargeError) Error() string {
	s := fmt.Sprintf("%s is %d bytes, over the %d-byte limit", e.What, e.Size, e.Max)
	if e.Suggestion != "" {
		s += "; " + e.Suggestion
	}
	return s
}

// TimeoutError is a command killed at its timeout, with what it printed.
type TimeoutError struct {
	After time.Duration
	// Contained: the sandbox launcher saw every process the command
	// started gone (without it, only the group and the descendants odek
	// could find were killed).
	Contained bool
	Output    string
}

func (e *TimeoutError) Error() string {
	if e.Contained {
		return fmt.Sprintf("shell: timed out after %s; the command and every process it started were killed\n%s", e.After, e.Output)
	}
	return fmt.Sprintf("shell: timed out after %s; the command's process group and the descendants odek found were killed\n%s", e.After, e.Output)
}

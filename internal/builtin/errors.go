package builtin

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/sandbox"
	"github.com/odek-run/odek/internal/untrusted"
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

// SandboxDeniedError is a path tool call the sandbox's map refused
// (sandbox.Access): a protected path, a write outside the writable roots,
// any write under a read-only sandbox, odek's own /proc. The model sees
// the path and why; the agent loop counts it as a denial (Denied), like
// the risk policy's, and reports its class and reason.
type SandboxDeniedError struct {
	Tool  string
	What  string     // the path (or pattern) as the model gave it
	Class risk.Class // what the call was classified as
	Err   *sandbox.AccessError
}

// maxDeniedWhat caps the model's path a denial repeats.
const maxDeniedWhat = 200

func (e *SandboxDeniedError) Error() string {
	return e.Tool + " " + strconv.Quote(untrusted.OneLine(e.What, maxDeniedWhat)) + ": denied by the sandbox: " + e.Err.Error()
}

func (e *SandboxDeniedError) Unwrap() error { return e.Err }

// Denied marks the error as a refusal for the agent loop.
func (e *SandboxDeniedError) Denied() bool { return true }

// RiskClass names the class the call was classified as.
func (e *SandboxDeniedError) RiskClass() string { return e.Class.String() }

// maxDeniedReason caps the reason events, reports and warnings carry.
const maxDeniedReason = 240

// Reason is why, on one bounded line: "sandbox: protected path: …".
func (e *SandboxDeniedError) Reason() string {
	return untrusted.OneLine("sandbox: "+e.Err.Refusal()+": "+e.Err.Error(), maxDeniedReason)
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

package artifact

import (
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/untrusted"
)

// ErrMalformedEnvelope is wrapped by every envelope decoding error, whose text
// starts with "malformed odek.tool-result/v1 envelope: ".
var ErrMalformedEnvelope = errors.New("malformed " + SchemaToolResult + " envelope")

// RefError reports why an artifact ref was rejected. Its text is the "<why>"
// the MCP client appends to "artifact ref rejected: "; it names the ref id and
// never contains file contents or the file path.
type RefError struct {
	ID     string // the ref's id as sent (may be empty)
	Reason string
}

func (e *RefError) Error() string {
	if e.ID == "" {
		return "artifact ref without id: " + e.Reason
	}
	return fmt.Sprintf("artifact %q: %s", untrusted.OneLine(e.ID, 128), e.Reason)
}

func refErr(ref Ref, format string, args ...any) error {
	return &RefError{ID: ref.ID, Reason: fmt.Sprintf(format, args...)}
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformedEnvelope, fmt.Sprintf(format, args...))
}

// Errors of the artifact_read tool and the Store.
var (
	// ErrIDRequired is returned when artifact_read gets no id.
	ErrIDRequired = errors.New("id is required")
	// ErrUnknownID is wrapped when an id is not registered.
	ErrUnknownID = errors.New("unknown artifact id")
	// ErrRemoved is wrapped when a registered artifact's file is gone.
	ErrRemoved = errors.New("artifact is no longer available")
	// ErrChanged is wrapped when a registered artifact no longer matches what was registered.
	ErrChanged = errors.New("artifact changed on disk")
	// ErrReservedID is returned by Register for ids that belong to saved results.
	ErrReservedID = errors.New("artifact id is reserved for saved results")
	// ErrUnverified is returned by Register for a Verified that Validate did not make.
	ErrUnverified = errors.New("artifact was not verified by Validate")
)

// ErrSaveCap is wrapped by a *CapError: SaveResult refused a result because
// the run's saved results would pass their cap (Store.LimitSaved).
var ErrSaveCap = errors.New("the run's saved results are at their cap")

// CapError is a save SaveResult refused for the cap: the result's size, what
// the run's saved results hold already, and the cap.
type CapError struct {
	Source          string // where the result came from ("builtin:shell")
	Size, Used, Max int64
}

func (e *CapError) Error() string {
	return fmt.Sprintf("artifact store: %s of %s not saved: the run's saved results hold %s of their %s cap",
		FormatBytes(e.Size), e.Source, FormatBytes(e.Used), FormatBytes(e.Max))
}

func (e *CapError) Unwrap() error { return ErrSaveCap }

// sentinelError carries its own text while matching a sentinel with errors.Is,
// so messages read naturally and callers can still classify them.
type sentinelError struct {
	msg      string
	sentinel error
}

func (e *sentinelError) Error() string { return e.msg }
func (e *sentinelError) Unwrap() error { return e.sentinel }

func withSentinel(sentinel error, format string, args ...any) error {
	return &sentinelError{msg: fmt.Sprintf(format, args...), sentinel: sentinel}
}

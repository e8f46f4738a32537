package session

import (
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/untrusted"
)

// ErrNotFound is returned (wrapped) when a session does not exist.
var ErrNotFound = errors.New("session not found")

// ErrNoSessions is returned by Newest when there is no session at all.
var ErrNoSessions = errors.New("no sessions yet: start one with odek run --session")

// NoSessionInDirError is NewestIn finding sessions, none of them from Dir.
type NoSessionInDirError struct {
	Dir       string
	Elsewhere int // sessions of other directories
}

func (e *NoSessionInDirError) Error() string {
	return fmt.Sprintf("no session ran in %s (%d in other directories: odek session list shows them; --any-dir continues the newest, --id a given one)",
		untrusted.OneLine(e.Dir, 512), e.Elsewhere)
}

// InvalidIDError is a session id ValidID refuses.
type InvalidIDError struct {
	ID     string
	Reason string
}

func (e *InvalidIDError) Error() string {
	return fmt.Sprintf("invalid session id %q: %s", untrusted.OneLine(e.ID, 160), e.Reason)
}

// ErrorClass returns "setup_error": the id must change (exit 3).
func (e *InvalidIDError) ErrorClass() string { return errclass.SetupError }

// ExistsError is a session created under an id that is taken: Create and
// Fork never replace a session.
type ExistsError struct {
	ID string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("session %s already exists", e.ID)
}

// ErrorClass returns "setup_error": choose another id (exit 3).
func (e *ExistsError) ErrorClass() string { return errclass.SetupError }

// TooLargeError is a session file over the size cap.
type TooLargeError struct {
	ID    string
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("session %s: file is %d bytes, over the %d-byte limit", e.ID, e.Size, e.Limit)
}

// IDMismatchError is a session file whose embedded id is not its file name.
type IDMismatchError struct {
	File, Embedded string
}

func (e *IDMismatchError) Error() string {
	return fmt.Sprintf("session %s: the file says its id is %q; refusing a renamed or forged session file", e.File, e.Embedded)
}

// RefError is an --external-ref that does not follow the external-state-ref
// schema (docs/EXTENSIONS.md).
type RefError struct {
	Ref    string // as given, shortened for display
	Reason string
}

func (e *RefError) Error() string {
	return fmt.Sprintf("external ref %q: %s", e.Ref, e.Reason)
}

// TamperedError is a session file whose MAC does not match its content: it
// was changed outside odek, or signed with another install's key. It is
// refused (a setup error, exit 3) rather than continued.
type TamperedError struct {
	ID string
}

func (e *TamperedError) Error() string {
	return fmt.Sprintf("session %s: the file was changed outside odek or signed with another %s (its MAC does not match); refusing to use it — delete it with odek session delete %s", e.ID, KeyFile, e.ID)
}

// ErrorClass returns "setup_error".
func (e *TamperedError) ErrorClass() string { return errclass.SetupError }

// KeyError is a session key file that cannot be used.
type KeyError struct {
	Path, Reason string
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("session key %s: %s", e.Path, e.Reason)
}

// ErrorClass returns "setup_error".
func (e *KeyError) ErrorClass() string { return errclass.SetupError }

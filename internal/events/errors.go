package events

import (
	"errors"
	"fmt"
	"time"
)

// ErrSymlink is wrapped by OpenJSONL when the target is, or became, a symlink.
var ErrSymlink = errors.New("events-jsonl: refusing to write events to symlink")

// ErrNoParentDir is wrapped by OpenJSONL when the target's directory is missing.
var ErrNoParentDir = errors.New("events-jsonl: parent directory must already exist")

// ErrNotRegular is wrapped by OpenJSONL when the target exists but is not a
// regular file or a FIFO (a directory, a device).
var ErrNotRegular = errors.New("events-jsonl: target is not a regular file")

// ErrNoReader is wrapped by OpenJSONL when no reader opened a FIFO in time.
var ErrNoReader = errors.New("events-jsonl: no reader opened the FIFO")

// ErrHardLink is wrapped by OpenJSONL when the target has more than one hard link.
var ErrHardLink = errors.New("events-jsonl: refusing to write events to a file with more than one hard link")

// pathError gives a sentinel the exact user-facing message with the path in it
// while keeping errors.Is working.
type pathError struct {
	msg string
	err error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.err }

func symlinkError(path string) error {
	return &pathError{"events-jsonl: refusing to write events to symlink " + path, ErrSymlink}
}

func noParentError(dir string) error {
	return &pathError{"events-jsonl: parent directory " + dir + " must already exist", ErrNoParentDir}
}

func notRegularError(path string) error {
	return &pathError{"events-jsonl: " + path + " is not a regular file or a FIFO", ErrNotRegular}
}

func noReaderError(path string, waited time.Duration) error {
	return &pathError{fmt.Sprintf("events-jsonl: no reader opened the FIFO %s within %s; start the reader first", path, waited), ErrNoReader}
}

func hardLinkError(path string, links uint64) error {
	return &pathError{fmt.Sprintf("events-jsonl: refusing to write events to %s: it has %d hard links", path, links), ErrHardLink}
}

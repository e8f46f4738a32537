package wire

import (
	"errors"
	"fmt"

	"github.com/odek-run/odek/internal/errclass"
)

// TaskError is a task file that cannot be used; the child reports it as a
// setup error (exit 3).
type TaskError struct {
	Field  string // "" when the file as a whole is wrong
	Reason string
}

func (e *TaskError) Error() string {
	if e.Field == "" {
		return "task file: " + e.Reason
	}
	return "task file: " + e.Field + " " + e.Reason
}

// ErrorClass implements events.Classifier.
func (e *TaskError) ErrorClass() string { return errclass.SetupError }

func taskErr(field, format string, args ...any) error {
	return &TaskError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// ErrFlood is wrapped when a child's stdout broke a cap (line size, line
// count or total bytes); the parent kills the child's process group.
var ErrFlood = errors.New("child output flood")

// FloodError says which stdout cap a child broke.
type FloodError struct {
	What     string // "line", "lines" or "bytes"
	Observed int64
	Limit    int64
}

func (e *FloodError) Error() string {
	switch e.What {
	case "line":
		return fmt.Sprintf("child output flood: a line of more than %d bytes", e.Limit)
	case "lines":
		return fmt.Sprintf("child output flood: more than %d lines", e.Limit)
	}
	return fmt.Sprintf("child output flood: more than %d bytes", e.Limit)
}

func (e *FloodError) Unwrap() error { return ErrFlood }

// ErrKeyFD is wrapped by every failure to read the API key from fd 3.
var ErrKeyFD = errors.New("api key handover")

package kube

import (
	"errors"

	"github.com/odek-run/odek/internal/errclass"
)

// SetupError is what keeps the helper from starting a child at all: its
// arguments, its settings, the task file, the cluster's answer to a
// create. The child's result is then an error and the exit code 3.
type SetupError struct{ Err error }

func (e *SetupError) Error() string      { return e.Err.Error() }
func (e *SetupError) Unwrap() error      { return e.Err }
func (e *SetupError) ErrorClass() string { return errclass.SetupError }

func setupErr(err error) error { return &SetupError{Err: err} }

// NotStartedError is a pod that never ran: not scheduled, or its image not
// pulled, within the schedule timeout. Reason is the cluster's.
type NotStartedError struct {
	What   string // "scheduled", "started"
	After  string // the time waited
	Reason string // e.g. "Unschedulable: 0/1 nodes are available: …"
}

func (e *NotStartedError) Error() string {
	msg := "the pod was not " + e.What + " within " + e.After
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// ErrCancelled ends a child whose parent stopped it (SIGTERM, SIGINT).
var ErrCancelled = errors.New("cancelled: the Job was deleted")

// ErrVersion is wrapped when the child's odek version is not the parent's.
var ErrVersion = errors.New("odek version mismatch")

package kube

import (
	"errors"

	"github.com/odek-run/odek/internal/errclass"
)

// NotStartedError is a pod that never ran: not scheduled, or its image not
// pulled, within the schedule timeout. Reason is the cluster's.
type NotStartedError struct {
	What   string // "scheduled", "started"
	After  string // the time waited
	Reason string // e.g. "Unschedulable: 0/1 nodes are available: …"
}

// ErrorClass is deadline_exceeded: the pod ran out of time to start.
func (e *NotStartedError) ErrorClass() string { return errclass.DeadlineExceeded }

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

package subagent

import (
	"errors"
	"time"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// outcome is everything the parent learned about one child once it ended.
type outcome struct {
	Stream    *wire.Stream  // what stdout held (may be nil if nothing was read)
	ReadErr   error         // a *FloodError, or a read failure
	WaitErr   error         // the process's exit error (nil for exit 0)
	TimedOut  bool          // the parent's deadline for the child expired
	Cancelled bool          // the parent's run was cancelled
	Timeout   time.Duration // the deadline, for the timeout message
	Stderr    string        // tail of the child's stderr, one line
}

// Resolve decides the result the model sees for a child (docs/SUBAGENTS.md). A
// flood always wins (the child was killed for it); otherwise a result the
// child printed is taken as is, except that a child the parent stopped is
// timeout or cancelled whatever it said; a child without a result is
// timeout, cancelled, error (it exited non-zero or by a signal) or no_result.
func (o outcome) Resolve() *wire.Result {
	var fe *wire.FloodError
	if errors.As(o.ReadErr, &fe) {
		return &wire.Result{Status: wire.StatusKilledFlood, Error: fe.Error()}
	}
	if o.Stream != nil && o.Stream.Result != nil {
		r := o.Stream.Result
		// A child the parent had to stop reports what it can (its summary and
		// use are kept), but the status says why it ended.
		switch {
		case o.TimedOut:
			r.Status, r.PartialReason, r.Error = wire.StatusTimeout, "", "timeout after "+o.Timeout.String()
		case o.Cancelled:
			r.Status, r.PartialReason, r.Error = wire.StatusCancelled, "", "sub-agent cancelled"
		}
		return r
	}
	raw := ""
	if o.Stream != nil {
		raw = o.Stream.Raw
	}
	switch {
	case o.TimedOut:
		return &wire.Result{Status: wire.StatusTimeout, Error: "timeout after " + o.Timeout.String(), Raw: raw}
	case o.Cancelled:
		return &wire.Result{Status: wire.StatusCancelled, Error: "sub-agent cancelled", Raw: raw}
	case o.WaitErr != nil:
		msg := "exit: " + o.WaitErr.Error()
		if o.Stderr != "" {
			msg += ": " + o.Stderr
		}
		return &wire.Result{Status: wire.StatusError, Error: msg, Raw: raw}
	case o.ReadErr != nil:
		return &wire.Result{Status: wire.StatusError, Error: "reading child output: " + o.ReadErr.Error(), Raw: raw}
	}
	return &wire.Result{Status: wire.StatusNoResult, Error: "the sub-agent exited without a result", Raw: raw}
}

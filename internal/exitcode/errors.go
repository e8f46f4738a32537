package exitcode

import (
	"context"
	"errors"
)

// CodeError carries an exit code decided elsewhere (odek subagent maps its
// result to 0/1/2/4 itself, docs/SUBAGENTS.md). A nil Err prints nothing.
type CodeError struct {
	Code int
	Err  error
}

func (e *CodeError) Error() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}

func (e *CodeError) Unwrap() error { return e.Err }

// Silent reports whether err is a CodeError with nothing to print.
func Silent(err error) bool {
	var ce *CodeError
	return errors.As(err, &ce) && ce.Err == nil
}

// ErrInterrupted is why the run's context ends on Ctrl-C or SIGTERM. It is
// a context.Canceled (exit 130, error_class context_canceled) that says
// what happened.
var ErrInterrupted error = interruptError{}

type interruptError struct{}

func (interruptError) Error() string        { return "interrupted" }
func (interruptError) Is(target error) bool { return target == context.Canceled }

// Shown is the error to show for err: ErrInterrupted when a signal ended
// the run (ctx's cause) and err is that cancellation (whatever wrapped it,
// however a library phrased it), else err.
func Shown(ctx context.Context, err error) error {
	if err != nil && errors.Is(err, context.Canceled) && errors.Is(context.Cause(ctx), ErrInterrupted) {
		return ErrInterrupted
	}
	return err
}

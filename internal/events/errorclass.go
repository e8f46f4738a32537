package events

import (
	"context"
	"errors"

	"github.com/odek-run/odek/internal/errclass"
)

// Classifier is implemented by typed errors of other packages (budget.Error,
// llm and mcpclient errors) to name their error_class (one of the errclass
// constants) without this leaf package importing them. Values outside that
// list are ignored.
type Classifier interface {
	ErrorClass() string
}

// ErrorClass maps err to its error_class: the first Classifier in the chain
// that names a known class wins, then context cancellation and deadline,
// else "error". Pass context.Cause(ctx) rather than ctx.Err() so a budget
// deadline is classed execution_budget. "" for a nil error. Raw error text is
// never emitted, only one of these.
func ErrorClass(err error) string {
	if err == nil {
		return ""
	}
	var c Classifier
	if errors.As(err, &c) {
		if cl := c.ErrorClass(); errclass.Known(cl) {
			return cl
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return errclass.ContextCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return errclass.DeadlineExceeded
	}
	return errclass.Error
}

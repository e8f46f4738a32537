package events

import (
	"context"
	"errors"
)

// error_class values (EXTENSIONS.md plus DECISION 9). Raw error text is never
// emitted, only one of these.
const (
	ClassContextCanceled  = "context_canceled"
	ClassDeadlineExceeded = "deadline_exceeded"
	ClassToolError        = "tool_error"
	ClassError            = "error"
	ClassExecutionBudget  = "execution_budget"
	ClassRateLimited      = "rate_limited"
	ClassProviderAuth     = "provider_auth"
	ClassProviderError    = "provider_error"
	ClassMCPError         = "mcp_error"
	ClassSetupError       = "setup_error"
)

var knownClasses = map[string]bool{
	ClassContextCanceled: true, ClassDeadlineExceeded: true, ClassToolError: true, ClassError: true,
	ClassExecutionBudget: true, ClassRateLimited: true, ClassProviderAuth: true,
	ClassProviderError: true, ClassMCPError: true, ClassSetupError: true,
}

// Classifier is implemented by typed errors of other packages (budget.Error,
// llm and mcpclient errors) to name their error_class without this leaf
// package importing them. Values outside the list above are ignored.
type Classifier interface {
	ErrorClass() string
}

// ErrorClass maps err to its error_class: the first Classifier in the chain
// that names a known class wins, then context cancellation and deadline,
// else "error". Pass context.Cause(ctx) rather than ctx.Err() so a budget
// deadline is classed execution_budget. "" for a nil error.
func ErrorClass(err error) string {
	if err == nil {
		return ""
	}
	var c Classifier
	if errors.As(err, &c) {
		if cl := c.ErrorClass(); knownClasses[cl] {
			return cl
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return ClassContextCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return ClassDeadlineExceeded
	}
	return ClassError
}

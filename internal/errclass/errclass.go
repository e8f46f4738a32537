// Package errclass is the one list of error_class values (docs/EVENTS.md,
// docs/DECISIONS.md DECISION 9, plus policy_denied: issue 22, and stalled
// and loop_detected: issue 36): the stable, low-cardinality names that
// events and the run report give a failure instead of its text.
//
// Typed errors elsewhere (budget, llm, mcpclient, loop) name their class
// with an ErrorClass() string method returning one of these constants;
// package events reads them without importing those packages. This package
// imports nothing, so every layer may use it.
package errclass

// The error_class values.
const (
	ContextCanceled  = "context_canceled"
	DeadlineExceeded = "deadline_exceeded"
	ToolError        = "tool_error"
	Error            = "error"
	ExecutionBudget  = "execution_budget"
	RateLimited      = "rate_limited"
	ProviderAuth     = "provider_auth"
	ProviderError    = "provider_error"
	MCPError         = "mcp_error"
	SetupError       = "setup_error"
	// PolicyDenied is a tool call the risk policy refused (by configuration
	// or by the operator at the prompt): it never ran, so it is not a
	// tool_error.
	PolicyDenied = "policy_denied"
	// Stalled is a run the stall watchdog ended: nothing showed progress
	// for stall_timeout_seconds (a timeout, not a failure of what ran).
	Stalled = "stalled"
	// LoopDetected is a run the loop breaker ended: the model repeated one
	// call, or one tool kept failing, past loop_breaker.stop_after.
	LoopDetected = "loop_detected"
)

// All lists every value, in the order above.
var All = []string{
	ContextCanceled, DeadlineExceeded, ToolError, Error, ExecutionBudget,
	RateLimited, ProviderAuth, ProviderError, MCPError, SetupError, PolicyDenied,
	Stalled, LoopDetected,
}

// Known reports whether c is one of the values.
func Known(c string) bool {
	switch c {
	case ContextCanceled, DeadlineExceeded, ToolError, Error, ExecutionBudget,
		RateLimited, ProviderAuth, ProviderError, MCPError, SetupError, PolicyDenied,
		Stalled, LoopDetected:
		return true
	}
	return false
}

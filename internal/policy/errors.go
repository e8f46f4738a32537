package policy

import (
	"errors"
	"strconv"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/risk"
	"github.com/odek-run/odek/internal/untrusted"
)

// DeniedError is a call the policy refused. The model sees Error(); the
// agent loop counts it as denied (Denied). Why is for the operator.
type DeniedError struct {
	Tool  string
	What  string
	Class risk.Class
	Why   string
	// ByOperator: the operator answered no at the prompt (or ended its
	// input); otherwise the configuration refused the call.
	ByOperator bool
}

// maxWhat caps the invocation shown in a denial.
const maxWhat = 200

// Error reads as docs/TOOLS.md writes it:
// operation denied by configuration: <what> (risk: <class>).
// A call refused at the prompt reads "operation denied by the operator: …".
func (e *DeniedError) Error() string {
	by := "configuration"
	if e.ByOperator {
		by = "the operator"
	}
	return "operation denied by " + by + ": " + describe(e.Tool, e.What) + " (risk: " + e.Class.String() + ")"
}

// Denied marks the error as a refusal for the agent loop.
func (e *DeniedError) Denied() bool { return true }

// ErrorClass is policy_denied: the call never ran.
func (e *DeniedError) ErrorClass() string { return errclass.PolicyDenied }

// RiskClass names the class the decision was taken on.
func (e *DeniedError) RiskClass() string { return e.Class.String() }

// maxReason caps the reason events and reports carry.
const maxReason = 240

// Reason is why the call was refused, on one bounded line.
func (e *DeniedError) Reason() string { return untrusted.OneLine(e.Why, maxReason) }

// describe names a call on one line: shell "curl -s x", write_file "/etc/x".
func describe(tool, what string) string {
	name := untrusted.OneLine(tool, 64)
	if what == "" {
		return name
	}
	return name + " " + strconv.Quote(untrusted.OneLine(what, maxWhat))
}

// ErrConfig is a dangerous setting the policy cannot use.
var ErrConfig = errors.New("dangerous")

package policy

import (
	"errors"
	"strconv"

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
}

// maxWhat caps the invocation shown in a denial.
const maxWhat = 200

// Error reads as docs/TOOLS.md writes it:
// operation denied by configuration: <what> (risk: <class>).
func (e *DeniedError) Error() string {
	return "operation denied by configuration: " + describe(e.Tool, e.What) + " (risk: " + e.Class.String() + ")"
}

// Denied marks the error as a refusal for the agent loop.
func (e *DeniedError) Denied() bool { return true }

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

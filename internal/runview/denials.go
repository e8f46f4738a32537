package runview

import (
	"fmt"
	"sync"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/untrusted"
)

// Denial is one call the risk policy refused, as the run report lists it.
type Denial struct {
	Tool   string `json:"tool"`
	Class  string `json:"class"`
	Reason string `json:"reason"`
}

// Denials collects the run's refused calls for the report; calls of one
// batch are refused concurrently. The zero value is ready to use.
type Denials struct {
	mu   sync.Mutex
	list []Denial
}

// maxReportedDenials caps the list in the report; the count stays exact in
// tool_calls.denied.
const maxReportedDenials = 100

// Add records a refused call (the policy's OnDeny).
func (d *Denials) Add(oc policy.Outcome) {
	e := policy.DeniedError{Why: oc.Why}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.list) < maxReportedDenials {
		d.list = append(d.list, Denial{Tool: untrusted.OneLine(oc.Call.Tool, 64), Class: oc.Class.String(), Reason: e.Reason()})
	}
}

// All is the list for the report: never nil, so `.denials | length` works.
func (d *Denials) All() []Denial {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Denial{}, d.list...)
}

func (d *Denials) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.list)
}

// DeniedRunError fails a run that had denials under --fail-on-denial
// (exit 1): the answer is still printed, the job still fails.
type DeniedRunError struct{ n int }

func (e *DeniedRunError) Error() string {
	return fmt.Sprintf("%d tool call(s) denied by the risk policy (--fail-on-denial)", e.n)
}

// ErrorClass is policy_denied, for run_failed and the report.
func (e *DeniedRunError) ErrorClass() string { return errclass.PolicyDenied }

// FailRun turns a successful run with denials into a failure when
// --fail-on-denial (on) asks for it.
func (d *Denials) FailRun(on bool, runErr error) error {
	if runErr != nil || !on {
		return runErr
	}
	if n := d.count(); n > 0 {
		return &DeniedRunError{n: n}
	}
	return nil
}

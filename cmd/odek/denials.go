package main

import (
	"fmt"
	"sync"

	"github.com/odek-run/odek/internal/errclass"
	"github.com/odek-run/odek/internal/policy"
	"github.com/odek-run/odek/internal/untrusted"
)

// reportDenial is one call the risk policy refused, as the run report
// lists it.
type reportDenial struct {
	Tool   string `json:"tool"`
	Class  string `json:"class"`
	Reason string `json:"reason"`
}

// denials collects the run's refused calls; calls of one batch are refused
// concurrently.
type denials struct {
	mu   sync.Mutex
	list []reportDenial
}

// maxReportedDenials caps the list in the report; the count stays exact in
// tool_calls.denied.
const maxReportedDenials = 100

func (d *denials) add(oc policy.Outcome) {
	e := policy.DeniedError{Why: oc.Why}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.list) < maxReportedDenials {
		d.list = append(d.list, reportDenial{Tool: untrusted.OneLine(oc.Call.Tool, 64), Class: oc.Class.String(), Reason: e.Reason()})
	}
}

// all is the list for the report: never nil, so `.denials | length` works.
func (d *denials) all() []reportDenial {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]reportDenial{}, d.list...)
}

func (d *denials) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.list)
}

// deniedRunError fails a run that had denials under --fail-on-denial
// (exit 1): the answer is still printed, the job still fails.
type deniedRunError struct{ n int }

func (e *deniedRunError) Error() string {
	return fmt.Sprintf("%d tool call(s) denied by the risk policy (--fail-on-denial)", e.n)
}

// ErrorClass is policy_denied, for run_failed and the report.
func (e *deniedRunError) ErrorClass() string { return errclass.PolicyDenied }

// failRun turns a successful run with denials into a failure when
// --fail-on-denial (on) asks for it.
func (d *denials) failRun(on bool, runErr error) error {
	if runErr != nil || !on {
		return runErr
	}
	if n := d.count(); n > 0 {
		return &deniedRunError{n: n}
	}
	return nil
}

package telemetry

import (
	"errors"
	"fmt"
)

// ErrExport is what every failed export wraps.
var ErrExport = errors.New("telemetry: export failed")

// StatusError is a collector's answer other than 2xx.
type StatusError struct {
	Status int
	Body   string // the first bytes of the answer, for the warning
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("collector answered HTTP %d", e.Status)
	}
	return fmt.Sprintf("collector answered HTTP %d: %s", e.Status, e.Body)
}

// Unwrap makes every StatusError an ErrExport.
func (e *StatusError) Unwrap() error { return ErrExport }

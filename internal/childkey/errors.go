package childkey

import "errors"

// ErrHandover is wrapped by every failure to take the key from the parent.
var ErrHandover = errors.New("api key handover")

// handoverError is one failure of the handover: what went wrong, and the
// system error behind it when there is one. It matches ErrHandover and that
// error with errors.Is.
type handoverError struct {
	reason string
	err    error
}

func fail(reason string, err error) error { return &handoverError{reason: reason, err: err} }

func (e *handoverError) Error() string {
	if e.err == nil {
		return ErrHandover.Error() + ": " + e.reason
	}
	return ErrHandover.Error() + ": " + e.reason + ": " + e.err.Error()
}

func (e *handoverError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrHandover}
	}
	return []error{ErrHandover, e.err}
}

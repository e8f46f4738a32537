package subagent

import (
	"errors"
	"testing"
)

// failWC is a WriteCloser whose Write and Close fail as told.
type failWC struct{ writeErr, closeErr error }

func (f *failWC) Write(b []byte) (int, error) {
	if f.writeErr != nil {
		return 0, f.writeErr
	}
	return len(b), nil
}
func (f *failWC) Close() error { return f.closeErr }

// TestWriteCloseKeepsEitherError: a failed write is reported though the
// close succeeds, and a failed close after a good write is reported too.
func TestWriteCloseKeepsEitherError(t *testing.T) {
	w, c := errors.New("write: no space"), errors.New("close: I/O error")
	for _, tc := range []struct {
		f    *failWC
		want error
	}{{&failWC{}, nil}, {&failWC{writeErr: w}, w}, {&failWC{closeErr: c}, c}, {&failWC{writeErr: w, closeErr: c}, w}} {
		if got := writeClose(tc.f, []byte("task")); !errors.Is(got, tc.want) || (tc.want == nil && got != nil) {
			t.Errorf("writeClose(write %v, close %v) = %v, want %v", tc.f.writeErr, tc.f.closeErr, got, tc.want)
		}
	}
}

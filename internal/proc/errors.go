package proc

import "errors"

// Errors of the process runner.
var (
	// ErrNoLauncher: a sandboxed start without SetLauncher.
	ErrNoLauncher = errors.New("proc: no sandbox launcher configured (SetLauncher)")
)

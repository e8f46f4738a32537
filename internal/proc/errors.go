package proc

import "errors"

// Errors of the process runner.
var (
	// ErrNoLauncher: a sandboxed start without SetLauncher.
	ErrNoLauncher = errors.New("proc: no sandbox launcher configured (SetLauncher)")
	// ErrNotExecOnly: ExecOnlySelf could not make an execute-only copy;
	// children of the path it returned start dumpable.
	ErrNotExecOnly = errors.New("proc: no execute-only copy of the executable")
)

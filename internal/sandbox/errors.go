package sandbox

import "errors"

// Errors of the sandbox.
var (
	// ErrUnsupported: the kernel or system cannot hold the requested policy.
	ErrUnsupported = errors.New("sandbox: not supported here")
	// ErrBadPolicy: a Policy that names an unknown mode or a relative path.
	ErrBadPolicy = errors.New("sandbox: bad policy")
	// ErrLauncher: the launcher failed before the target started.
	ErrLauncher = errors.New("sandbox: launcher failed")
)

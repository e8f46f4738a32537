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

// Errors of opening a policy's rules.
var (
	// ErrNotPrepared: a Landlock policy reached a launch without Prepare.
	ErrNotPrepared = errors.New("sandbox: policy not prepared (its rules were never opened)")
	// ErrReleased: the policy's rules were closed by Release.
	ErrReleased = errors.New("sandbox: policy released")
)

// ErrCollision: two paths of a policy collide so that a protected path
// would be granted (Policy.Collisions).
var ErrCollision = errors.New("sandbox: paths collide")

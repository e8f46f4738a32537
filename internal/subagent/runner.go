package subagent

import (
	"context"
	"io"
)

// Spec is everything a runner needs to start one child.
type Spec struct {
	TaskID   string
	TaskFile string   // path of the task file the child reads (--task)
	Args     []string // further flags after "subagent --task <file> --quiet --stream"
	Env      []string // the whole child environment (childEnv)
	Dir      string   // working directory (the parent's workspace)
	// Key, when set, is the API key to hand the child; the local runner
	// hands it over on descriptor 3 (wire.KeyOffer), never in the
	// environment or argv.
	Key string
}

// Runner starts children. The local process runner is the only backend
// today; a cluster scheduler could be another, without delegate_tasks
// knowing.
type Runner interface {
	// Start launches the child. When ctx ends, the child is asked to stop and
	// then killed; Wait reports the end either way.
	Start(ctx context.Context, spec Spec) (Process, error)
}

// Process is one running child.
type Process interface {
	// PID identifies the child (0 when the backend has none).
	PID() int
	// Stdout is the child's standard output; it reaches EOF once the child
	// and everything it started are gone.
	Stdout() io.Reader
	// Kill stops the child and everything it started at once.
	Kill()
	// Wait blocks until the child has exited and everything it started is
	// gone, and returns its exit error (nil for exit status 0).
	Wait() error
	// StderrTail is the end of the child's stderr, on one line.
	StderrTail() string
}

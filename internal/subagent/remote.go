package subagent

import (
	"context"
	"time"
)

// remoteGrace is a remote child's time between SIGTERM and SIGKILL: the
// helper deletes the child's Job and waits until it is gone (odek-kube
// waits at most 20 s), so that nothing is left in the cluster.
const remoteGrace = 30 * time.Second

// RemoteRunner starts each child through a remote helper (docs/SCALE.md):
// a program started exactly like a local child (`subagent --task FILE …`,
// the key on descriptor 3, the result on stdout, the child's exit code)
// that runs the child elsewhere, e.g. odek-kube, which makes it a
// Kubernetes Job. odek never links what the helper needs.
type RemoteRunner struct {
	// Path is the helper's executable.
	Path string
	// Env is added to each child's environment for the helper: its
	// settings, the parent's version (none of it secret).
	Env []string
	// Grace is the time between SIGTERM and SIGKILL; 0 means remoteGrace.
	Grace time.Duration
}

// Start implements Runner.
func (r *RemoteRunner) Start(ctx context.Context, spec Spec) (Process, error) {
	local := &LocalRunner{Path: r.Path, Grace: r.Grace}
	if local.Grace <= 0 {
		local.Grace = remoteGrace
	}
	spec.Env = append(append([]string{}, spec.Env...), r.Env...)
	return local.Start(ctx, spec)
}

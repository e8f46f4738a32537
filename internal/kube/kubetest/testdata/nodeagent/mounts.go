package main

import (
	"os"
	"path/filepath"
)

// pr.mounts lists the directories shallowest first; they are removed in
// the reverse order.

// makeMountPoints creates the mount targets that do not exist on the host
// (the launch child bind-mounts onto them in its own namespace) and
// records the directories it made, so that releaseMountPoints can remove
// them once no pod uses them. A directory another pod's start made counts
// this pod too: removed while this pod runs, it would take the pod's bind
// mount with it (the kernel detaches a mount whose mount point is removed
// in another namespace). Called with p.mu held.
func (p *provider) makeMountPoints(pr *podRun, mounts []bindMount) {
	for _, m := range mounts {
		var missing []string // deepest first: made here, or to make
		for dir := filepath.Clean(m.Target); dir != "/"; dir = filepath.Dir(dir) {
			if _, err := os.Lstat(dir); err == nil && p.created[dir] == 0 {
				break
			}
			missing = append(missing, dir)
		}
		if len(missing) == 0 {
			continue
		}
		if err := os.MkdirAll(m.Target, 0o755); err != nil {
			continue // the launch child reports the mount's failure
		}
		for i := len(missing) - 1; i >= 0; i-- {
			p.created[missing[i]]++
			pr.mounts = append(pr.mounts, missing[i])
		}
	}
}

// releaseMountPoints removes the empty directories makeMountPoints made for
// pr that no other pod uses. Called with p.mu held; a second call does
// nothing.
func (p *provider) releaseMountPoints(pr *podRun) {
	for i := len(pr.mounts) - 1; i >= 0; i-- {
		dir := pr.mounts[i]
		p.created[dir]--
		if p.created[dir] > 0 {
			continue
		}
		delete(p.created, dir)
		os.Remove(dir) // only if empty: never a directory someone filled
	}
	pr.mounts = nil
}

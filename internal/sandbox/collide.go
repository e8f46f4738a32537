package sandbox

import (
	"fmt"
	"os"
)

// Collisions reports a configuration whose rules would hand a command
// what a protected path keeps from it: Landlock grants a tree as a whole,
// so a writable or readable path that holds a protected path (an existing
// one: ~/.cargo beside ~/.cargo/credentials) grants that path too, and a
// writable path inside a protected one (~/.ssh/sockets) writes into it.
// Readable paths may lie inside protected ones: that is what they are for.
// The workspace is not checked here (the caller warns: running odek in a
// directory that holds secrets is the operator's choice, said aloud).
// Nested writable paths, a temp dir inside the workspace and the like are
// safe by construction: every rule is held by descriptor (hold.go).
func (p Policy) Collisions() error {
	if !p.Sandboxed() {
		return nil
	}
	type tree struct{ what, path string }
	var writable, readable []tree
	if p.TempDir != "" {
		writable = append(writable, tree{"the private temp dir", p.TempDir})
	}
	if p.Mode == ModeWorkspaceWrite {
		for _, w := range p.Writable {
			writable = append(writable, tree{"writable path", w})
		}
	}
	for _, r := range p.Readable {
		readable = append(readable, tree{"readable path", r})
	}
	for _, pr := range p.Protected {
		for _, t := range append(writable, readable...) {
			if isUnder(pr, t.path) && exists(pr) {
				return fmt.Errorf("%w: %s %s holds protected path %s: a granted tree grants everything in it; name narrower trees",
					ErrCollision, t.what, t.path, pr)
			}
		}
		for _, t := range writable {
			if isUnder(t.path, pr) {
				return fmt.Errorf("%w: %s %s lies inside protected path %s: commands would write into it",
					ErrCollision, t.what, t.path, pr)
			}
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Package reporoot finds the repository a working directory belongs to: the
// nearest directory, from the working directory up, that holds a ".git"
// entry (a directory, or the file of a worktree or submodule). Project
// files (odek.json) and project instructions (AGENTS.md) are looked for
// between that root and the working directory, never above it.
//
// The package is a helper leaf: it imports the standard library only.
package reporoot

import (
	"os"
	"path/filepath"
)

// Find returns the nearest directory at or above dir holding a ".git"
// entry, and true; or dir itself and false when no ancestor holds one, so
// a caller that walks from the root down to dir looks at dir alone. dir is
// made absolute and cleaned first; symlinks are not resolved, so the
// directories named are those the operator sees.
func Find(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, false
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, false
		}
		d = parent
	}
}

// Chain lists the directories from root down to dir, both included, root
// first. dir must be root or below it (as Find returns them); otherwise
// the chain is dir alone.
func Chain(root, dir string) []string {
	root, dir = filepath.Clean(root), filepath.Clean(dir)
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return []string{dir}
	}
	var up []string
	for d := dir; ; d = filepath.Dir(d) {
		up = append(up, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	out := make([]string, len(up))
	for i, d := range up {
		out[len(up)-1-i] = d
	}
	return out
}

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// readSet splits the file system into what the launcher grants for reading
// when protected may not be read: whole trees (every entry of an ancestor of
// a protected path but the one leading to it, recursively) and the
// ancestors themselves, which get only the right to list their entries —
// the names in ~/.ssh are visible, nothing in it is readable. Landlock only
// grants, so the read set is built by listing what is allowed. Symlinks in
// an ancestor are skipped: their target is granted (or not) by its own path.
func readSet(protected []string) (trees, files, listOnly []string) {
	prot := resolveAll(protected)
	// The walk asks of every entry of every ancestor whether it is
	// protected, or an ancestor of a protected path: sets, not a scan of
	// prot per entry (a shared /tmp of hundreds of entries, against some
	// thirty protected paths, took 14 ms that way).
	isProt := make(map[string]bool, len(prot))
	isAncestor := map[string]bool{}
	for _, p := range prot {
		isProt[p] = true
		for d := filepath.Dir(p); !isAncestor[d]; d = filepath.Dir(d) {
			isAncestor[d] = true
			if d == "/" || d == "." {
				break
			}
		}
	}
	var walk func(dir string, isDir bool)
	walk = func(dir string, isDir bool) {
		switch {
		case isProt[dir]:
			return
		case !isDir:
			files = append(files, dir)
			return
		case !isAncestor[dir]:
			trees = append(trees, dir)
			return
		}
		listOnly = append(listOnly, dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Type()&os.ModeSymlink != 0 {
				continue
			}
			walk(filepath.Join(dir, e.Name()), e.IsDir())
		}
	}
	walk("/", true)
	return trees, files, listOnly
}

// resolveAll cleans each path and adds its symlink-resolved form, so that a
// protected ~/.ssh that is a link protects its target too.
func resolveAll(paths []string) []string {
	var out []string
	for _, p := range paths {
		p = filepath.Clean(p)
		out = append(out, p)
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

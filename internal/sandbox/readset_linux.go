package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// entryKind is how the read set grants one entry.
type entryKind int

const (
	kindTree entryKind = iota // a directory, read as a whole
	kindFile                  // anything else, read
	kindList                  // an ancestor of a protected path: its entries may be listed
)

// walkReadSet splits the file system into what the launcher grants for
// reading when protected may not be read: whole trees (every entry of an
// ancestor of a protected path but the one leading to it, recursively) and
// the ancestors themselves, which get only the right to list their entries
// (the names in ~/.ssh are visible, nothing in it is readable). Landlock
// only grants, so the read set is built by listing what is allowed.
//
// The walk goes by descriptor: each entry is opened O_PATH|O_NOFOLLOW from
// the descriptor of the directory listed, and visit gets that descriptor,
// valid for the call. A symlink is never granted or followed (its target
// is granted, or not, by its own path), and a name swapped for a symlink
// while the walk runs is skipped, not followed.
func walkReadSet(protected []string, visit func(path string, fd int, kind entryKind) error) error {
	prot := resolveAll(protected)
	// Sets, not a scan of prot per entry: a shared /tmp of hundreds of
	// entries against some thirty protected paths took 14 ms that way.
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
	if isProt["/"] {
		return nil
	}
	root, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(root)
	if !isAncestor["/"] {
		return visit("/", root, kindTree)
	}
	w := readSetWalk{isProt: isProt, isAncestor: isAncestor, visit: visit}
	return w.dir("/", root)
}

type readSetWalk struct {
	isProt, isAncestor map[string]bool
	visit              func(path string, fd int, kind entryKind) error
}

// dir grants listing the ancestor dir (held by the O_PATH descriptor fd)
// and walks its entries.
func (w *readSetWalk) dir(dir string, fd int) error {
	if err := w.visit(dir, fd, kindList); err != nil {
		return err
	}
	lfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // unlistable: nothing below it is granted
	}
	list := os.NewFile(uintptr(lfd), dir)
	entries, _ := list.ReadDir(-1)
	list.Close()
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		if err := w.entry(filepath.Join(dir, e.Name()), fd, e.Name()); err != nil {
			return err
		}
	}
	return nil
}

// entry grants one entry of an ancestor (parent) as what it is now.
func (w *readSetWalk) entry(path string, parent int, name string) error {
	if w.isProt[path] {
		return nil
	}
	fd, err := unix.Openat(parent, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // gone since the listing
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return nil // swapped in since the listing
	case unix.S_IFDIR:
		if w.isAncestor[path] {
			return w.dir(path, fd)
		}
		return w.visit(path, fd, kindTree)
	}
	return w.visit(path, fd, kindFile)
}

// readSet is the read set as paths (for tests and diagnostics).
func readSet(protected []string) (trees, files, listOnly []string) {
	_ = walkReadSet(protected, func(path string, _ int, kind entryKind) error {
		switch kind {
		case kindTree:
			trees = append(trees, path)
		case kindFile:
			files = append(files, path)
		default:
			listOnly = append(listOnly, path)
		}
		return nil
	})
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

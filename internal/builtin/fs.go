package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/odek-run/odek/internal/safepath"
	"github.com/odek-run/odek/internal/sandbox"
)

// The path tools act on the path the classifier resolved (absolute, free of
// symlinks and ".."), and reach it only through internal/safepath: from a
// descriptor of the working directory when it lies inside it, of "/"
// otherwise, following no symlink at any component. A directory swapped for
// a symlink after the check then fails the call instead of redirecting it.

// errUnresolved is a path the classifier could not resolve to a place.
var errUnresolved = errors.New("the path cannot be resolved")

// split names the directory the resolved path is reached from and the path
// below it: the working directory when it lies inside, "/" otherwise.
func (ws *workspace) split(resolved string) (base, rel string, err error) {
	if !strings.HasPrefix(resolved, "/") || path.Clean(resolved) != resolved {
		return "", "", errUnresolved
	}
	root := ws.cls.Root()
	switch {
	case resolved == root:
		return root, ".", nil
	case root != "/" && strings.HasPrefix(resolved, root+"/"):
		return root, resolved[len(root)+1:], nil
	case resolved == "/":
		return "/", ".", nil
	}
	return "/", resolved[1:], nil
}

// open opens the resolved path with flags (safepath.FileFlags or
// DirFlags). Under a map it opens the path's directory first and the last
// name from it, and asks a Guard about both: the Guard it returns checks
// what a walk below the opened directory reaches (nil without a map).
func (ws *workspace) open(resolved string, flags int) (*os.File, *sandbox.Guard, error) {
	base, rel, err := ws.split(resolved)
	if err != nil {
		return nil, nil, err
	}
	root, err := safepath.OpenRoot(base)
	if err != nil {
		return nil, nil, pathErr(err)
	}
	defer root.Close()
	if ws.access == nil {
		f, err := safepath.OpenBeneath(root, rel, flags)
		return f, nil, pathErr(err)
	}
	g := ws.access.Guard()
	dir := root
	if rel != "." {
		if dir, err = safepath.OpenBeneath(root, path.Dir(rel), parentFlags); err != nil {
			return nil, nil, pathErr(err)
		}
		defer dir.Close()
		rel = path.Base(rel)
	}
	f, err := safepath.OpenBeneath(dir, rel, flags)
	if err != nil {
		return nil, nil, pathErr(err)
	}
	from := dir
	if rel == "." {
		from = nil // a root: the walk up starts at f
	}
	if err := g.Read(from, f, resolved); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, g, nil
}

// entryCheck is the walk's check of each directory it enters below the
// directory opened at base (nil without a map): a protected one, under
// its own name or another, is not entered.
func entryCheck(g *sandbox.Guard, base string) func(sub *os.File, rel string) bool {
	if g == nil {
		return nil
	}
	return func(sub *os.File, rel string) bool {
		defer runtime.KeepAlive(sub)
		return g.Entry(int(sub.Fd()), path.Join(base, rel)) == nil
	}
}

// writeSplit is split for a write: under a map, the path is reached from
// the deepest writable root it lies in, so that nothing (a missing parent
// directory included) is made outside one.
func (ws *workspace) writeSplit(resolved string) (base, rel string, err error) {
	if ws.access == nil {
		return ws.split(resolved)
	}
	if err := ws.access.Decide(resolved, true); err != nil {
		return "", "", err
	}
	base = ws.access.WritableRoot(resolved)
	switch {
	case resolved == base:
		return base, ".", nil
	case base == "/":
		return base, resolved[1:], nil
	}
	return base, strings.TrimPrefix(resolved, base+"/"), nil
}

// pathErr says what a symlink found where the check saw none means.
func pathErr(err error) error {
	if errors.Is(err, safepath.ErrSymlink) {
		return fmt.Errorf("%w: the path changed after it was checked (a symlink appeared in it), so nothing was done", err)
	}
	return err
}

// openRegular opens the resolved path for reading without blocking on a
// FIFO and refuses anything but a regular file.
func (ws *workspace) openRegular(resolved string) (*os.File, int64, error) {
	f, _, err := ws.open(resolved, safepath.FileFlags)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, 0, errors.New("is a directory (use list_dir)")
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, ErrNotRegular
	}
	return f, fi.Size(), nil
}

// writeAtomic replaces (or creates, with any missing parent directories)
// the resolved path with data, keeping an existing file's mode; the file is
// written and renamed beneath its directory's descriptor. Under a map the
// path is reached from the writable root it lies in, and a Guard checks
// that root before anything is made in it and the file's directory before
// the file is written.
func (ws *workspace) writeAtomic(resolved string, data []byte) (created bool, err error) {
	base, rel, err := ws.writeSplit(resolved)
	if err != nil {
		return false, err
	}
	if rel == "." {
		return false, errors.New("is a directory")
	}
	root, err := safepath.OpenRoot(base)
	if err != nil {
		return false, pathErr(err)
	}
	defer root.Close()
	var g *sandbox.Guard
	if ws.access != nil {
		g = ws.access.Guard()
		if err := g.Write(root, base); err != nil {
			return false, err
		}
	}
	dirRel, name := path.Dir(rel), path.Base(rel)
	dir, err := safepath.OpenBeneath(root, dirRel, safepath.DirFlags)
	if errors.Is(err, fs.ErrNotExist) {
		created = true
		dir, err = safepath.MkdirAll(root, dirRel, 0o755)
	}
	if err != nil {
		return false, pathErr(err)
	}
	defer dir.Close()
	if g != nil && dirRel != "." {
		if err := g.Write(dir, path.Join(base, dirRel)); err != nil {
			return false, err
		}
	}
	perm := fs.FileMode(0o644)
	switch m, err := safepath.Lstat(dir, name); {
	case err == nil && m.IsDir():
		return false, errors.New("is a directory")
	case err == nil && m&fs.ModeSymlink != 0:
		return false, pathErr(safepath.ErrSymlink)
	case err == nil && !m.IsRegular():
		return false, ErrNotRegular
	case err == nil:
		perm = m.Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, err
	}
	return created, safepath.WriteFile(dir, name, data, perm)
}

// walkFunc sees one entry of a walk: its slash-separated path below the
// walk's root, the entry, and the open directory that holds it. fs.SkipDir
// skips a directory's contents, fs.SkipAll ends the walk; another error
// ends it with that error.
type walkFunc func(rel string, d fs.DirEntry, parent *os.File) error

// walkBeneath walks the open directory dir depth first in lexical order,
// like filepath.WalkDir, but opens every subdirectory from its parent's
// descriptor following no symlink: one swapped for a symlink during the
// walk is skipped, never followed, and so is one enter (nil: none) refuses. Subdirectories that cannot be read are
// skipped; an error reading dir itself is returned. dir is read through a
// descriptor of its own, so the same dir can be walked again.
func walkBeneath(dir *os.File, fn walkFunc, enter func(sub *os.File, rel string) bool) error {
	own, err := safepath.OpenBeneath(dir, ".", safepath.DirFlags)
	if err != nil {
		return err
	}
	defer own.Close()
	entries, err := readSorted(own)
	if err != nil {
		return err
	}
	err = walkEntries(own, "", entries, fn, enter)
	if errors.Is(err, fs.SkipAll) || errors.Is(err, fs.SkipDir) {
		return nil
	}
	return err
}

func walkEntries(dir *os.File, prefix string, entries []fs.DirEntry, fn walkFunc, enter func(*os.File, string) bool) error {
	for _, d := range entries {
		rel := d.Name()
		if prefix != "" {
			rel = prefix + "/" + rel
		}
		err := fn(rel, d, dir)
		if errors.Is(err, fs.SkipDir) && d.IsDir() {
			continue
		}
		if err != nil {
			return err
		}
		if !d.IsDir() {
			continue
		}
		sub, err := safepath.OpenBeneath(dir, d.Name(), safepath.DirFlags)
		if err != nil {
			continue // vanished, unreadable, or swapped for a symlink
		}
		if enter != nil && !enter(sub, rel) {
			sub.Close()
			continue // a protected directory: its entries are not listed
		}
		subEntries, err := readSorted(sub)
		if err == nil {
			err = walkEntries(sub, rel, subEntries, fn, enter)
		} else {
			err = nil
		}
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// readSorted lists an open directory by name.
func readSorted(dir *os.File) ([]fs.DirEntry, error) {
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

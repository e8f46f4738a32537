//go:build unix

package sandbox

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/odek-run/odek/internal/safepath"
)

// fileID is a file's identity: what a name leads to, whatever the name.
type fileID struct{ dev, ino uint64 }

func idOf(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}

func statID(st *unix.Stat_t) fileID {
	return fileID{uint64(st.Dev), uint64(st.Ino)}
}

// heldIDs are the identities of the writable and readable roots when the
// map was prepared and of the protected paths then (one moved away since
// is still known; one first made later is refused by name only). A root
// is held as the launcher holds it: the descriptor Policy.Prepare opened,
// or, where the policy holds none (no Landlock, or a map built for the
// sandbox off), the path opened the same way, from "/" with no symlink in
// any component. A root behind a symlink grants nothing, and a root
// swapped for another directory later is not the root.
type heldIDs struct {
	writable, readable, protected map[fileID]string
}

func holdIDs(p Policy, writable, readable, protected []string) heldIDs {
	ids := heldIDs{writable: map[fileID]string{}, readable: map[fileID]string{}, protected: statIDs(protected)}
	add := func(path string, id fileID) {
		if slices.Contains(writable, path) {
			ids.writable[id] = path
		}
		if slices.Contains(readable, path) {
			ids.readable[id] = path
		}
	}
	if h := p.held; h != nil {
		for _, r := range h.roots {
			var st unix.Stat_t
			if unix.Fstat(int(r.f.Fd()), &st) == nil {
				add(r.path, statID(&st))
			}
		}
		return ids
	}
	for _, path := range append(slices.Clone(writable), readable...) {
		if id, ok := openedID(path); ok {
			add(path, id)
		}
	}
	return ids
}

// openedID is the identity of path opened from "/" following no symlink.
func openedID(path string) (fileID, bool) {
	slash, err := os.Open("/")
	if err != nil {
		return fileID{}, false
	}
	defer slash.Close()
	f := slash
	if rel := strings.TrimPrefix(path, "/"); rel != "" {
		if f, err = safepath.OpenBeneath(slash, rel, holdFlags); err != nil {
			return fileID{}, false
		}
		defer f.Close()
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return fileID{}, false
	}
	return statID(&st), true
}

// Guard checks what one path tool call opened against the map; make one
// per call. Its checks may run concurrently once the first Read or Write
// has returned.
type Guard struct {
	a    *Access
	prot map[fileID]string
	// free: the directory Read verified lies in a readable tree, so
	// everything below it may be read.
	free bool
}

// Guard is a Guard over the map.
func (a *Access) Guard() *Guard {
	a.Prepare()
	return &Guard{a: a, prot: a.held.protected}
}

// Read checks a read of f, the file or directory opened at the canonical
// path. dir is the directory f was opened from by its last name alone, or
// nil when f is a directory (the walk starts at f itself). Neither f nor
// any directory above it may be a protected path under any name (unless a
// readable root is met first), nor on a proc file system.
func (g *Guard) Read(dir, f *os.File, path string) error {
	defer runtime.KeepAlive(dir)
	defer runtime.KeepAlive(f)
	if err := g.a.Decide(path, false); err != nil {
		return err
	}
	fd := int(f.Fd())
	if isProcFS(fd) {
		return &AccessError{Path: path, Kind: ProcessFiles}
	}
	start := fd
	if dir != nil {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		id := statID(&st)
		if _, ok := g.a.held.readable[id]; ok {
			g.free = true
			return nil
		}
		if rule, ok := g.prot[id]; ok {
			return &AccessError{Path: path, Kind: Protected, Rule: rule, Alias: rule != path}
		}
		start = int(dir.Fd())
	}
	return ancestors(start, func(id fileID) (bool, error) {
		if _, ok := g.a.held.readable[id]; ok {
			g.free = true
			return true, nil
		}
		if rule, ok := g.prot[id]; ok {
			return true, &AccessError{Path: path, Kind: Protected, Rule: rule, Alias: !isUnder(path, rule)}
		}
		return false, nil
	})
}

// Entry checks one entry a walk reached below a directory Read allowed,
// opened by its name alone from its parent: its canonical path is not a
// protected name and its identity not a protected path's, and a directory
// is not a proc file system. Entries of a readable tree always pass.
func (g *Guard) Entry(fd int, path string) error {
	if g.free {
		return nil
	}
	if err := g.a.protectedName(path); err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if rule, ok := g.prot[statID(&st)]; ok {
		return &AccessError{Path: path, Kind: Protected, Rule: rule, Alias: true}
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR && isProcFS(fd) {
		return &AccessError{Path: path, Kind: ProcessFiles}
	}
	return nil
}

// Write checks a write into dir, the directory opened at the canonical
// path dirPath that the written file's name is created and renamed in:
// the policy must not be read-only, neither dir nor any directory above it
// may be a protected path under any name, and one of them must be a
// writable root as it was when the map was built.
func (g *Guard) Write(dir *os.File, dirPath string) error {
	defer runtime.KeepAlive(dir)
	if err := g.a.Decide(dirPath, true); err != nil {
		return err
	}
	fd := int(dir.Fd())
	if isProcFS(fd) {
		return &AccessError{Path: dirPath, Write: true, Kind: ProcessFiles}
	}
	inRoot := false
	err := ancestors(fd, func(id fileID) (bool, error) {
		if rule, ok := g.prot[id]; ok {
			return true, &AccessError{Path: dirPath, Write: true, Kind: Protected, Rule: rule, Alias: !isUnder(dirPath, rule)}
		}
		if _, ok := g.a.held.writable[id]; ok {
			inRoot = true
		}
		return false, nil
	})
	if err == nil && !inRoot {
		err = &AccessError{Path: dirPath, Write: true, Kind: OutsideWritable, Roots: g.a.writable}
	}
	return err
}

// maxAncestors bounds the walk up (PATH_MAX allows some 2048 levels).
const maxAncestors = 4096

// ancestors calls visit with the identity of the directory fd and of each
// directory above it, to the root, reached through ".." from the
// descriptor itself: the directories the file really lies in now, whatever
// name it was reached by. visit ends the walk by returning true or an
// error. A walk that cannot reach the root fails closed.
func ancestors(fd int, visit func(fileID) (bool, error)) error {
	cur, own := fd, -1
	defer func() {
		if own >= 0 {
			_ = unix.Close(own)
		}
	}()
	var prev fileID
	for i := 0; i < maxAncestors; i++ {
		var st unix.Stat_t
		if err := unix.Fstat(cur, &st); err != nil {
			return err
		}
		id := statID(&st)
		if i > 0 && id == prev {
			return nil // ".." of the root is the root
		}
		if stop, err := visit(id); stop || err != nil {
			return err
		}
		parent, err := openParent(cur)
		if err != nil {
			return err
		}
		if own >= 0 {
			_ = unix.Close(own)
		}
		cur, own, prev = parent, parent, id
	}
	return &AccessError{Path: "(a directory more than 4096 levels deep)", Kind: Unresolved}
}

func openParent(fd int) (int, error) {
	for {
		p, err := unix.Openat(fd, "..", parentFlags, 0)
		if err != unix.EINTR {
			return p, err
		}
	}
}

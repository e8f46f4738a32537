package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Access is a Policy's map of the file system as odek's own path tools
// (read_file, write_file, patch, list_dir, glob, search_files) obey it:
// those tools run inside odek, not under the launcher, so the map the
// kernel holds for a command must be held for them by odek itself.
//
//   - A protected path, and everything below it, is never read or written,
//     whatever the risk policy allows; a readable path (Policy.Readable)
//     may be read even inside one, as a command may read it.
//   - Writes go only below the writable roots (Policy.WritableRoots); a
//     read-only policy allows none at all, the temp dir included.
//   - /proc is never read or written: for a path tool it is odek's own
//     process (its environment, its memory, its descriptors), not the
//     command's.
//
// Decide answers for a path string. Since a string can name a file it is
// not (a hard link, a bind mount, a directory moved in), a tool then asks
// a Guard about what it really opened: the identities (device and inode)
// of the opened file and of every directory above it, found by walking
// ".." from the opened descriptor, against those the protected paths and
// the roots had when the map was prepared. An Access is safe for
// concurrent use.
type Access struct {
	policy   Policy
	readOnly bool
	once     sync.Once
	// Set by prepare: protected holds each protected path cleaned and in
	// its canonical form (symlinks resolved as far as the path exists);
	// protSet the same for exact lookups during walks.
	protected []string
	protSet   map[string]bool
	readable  []string // cleaned
	writable  []string // cleaned, in WritableRoots' order
	held      heldIDs
}

// NewAccess is p's map. p must be sandboxed: where the kernel sandbox is
// off, build the map from the policy workspace-write would have (the
// caller chooses; odek uses the workspace, sandbox.writable_paths and the
// protected paths, without a temp dir). The map is prepared (paths
// resolved, identities taken) by Prepare or on first use.
func NewAccess(p Policy) (*Access, error) {
	if !p.Sandboxed() {
		return nil, fmt.Errorf("%w: the path tools' map needs a sandboxed mode, not %q", ErrBadPolicy, p.Mode)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p.Protected, p.Readable, p.Writable = slices.Clone(p.Protected), slices.Clone(p.Readable), slices.Clone(p.Writable)
	return &Access{policy: p, readOnly: p.Mode == ModeReadOnly}, nil
}

// Prepare resolves the map's paths and takes the identities the Guards
// compare with: some hundred system calls, which a caller may make beside
// its own start-up rather than on the first path tool call. Only the
// first call does anything; every other method calls it.
func (a *Access) Prepare() { a.once.Do(a.prepare) }

func (a *Access) prepare() {
	p := a.policy
	c := canonicalizer{}
	a.protSet = map[string]bool{}
	for _, pr := range p.Protected {
		for _, form := range []string{filepath.Clean(pr), c.canonical(pr)} {
			if !a.protSet[form] {
				a.protSet[form] = true
				a.protected = append(a.protected, form)
			}
		}
	}
	// The roots are taken as named, not resolved: one behind a symlink
	// is granted to no command (the launcher refuses to hold it), so to
	// no path tool either.
	for _, r := range p.Readable {
		a.readable = append(a.readable, filepath.Clean(r))
	}
	if !a.readOnly {
		for _, w := range p.WritableRoots() {
			a.writable = append(a.writable, filepath.Clean(w))
		}
	}
	a.held = holdIDs(p, a.writable, a.readable, a.protected)
}

// WritableRoots are the trees p lets a command write: the private temp
// dir in every sandboxed mode, and in workspace-write the workspace and the
// writable paths. (The devices every command may write are not roots.)
func (p Policy) WritableRoots() []string {
	var out []string
	if p.TempDir != "" {
		out = append(out, p.TempDir)
	}
	if p.Mode == ModeWorkspaceWrite {
		out = append(out, p.Workspace)
		out = append(out, p.Writable...)
	}
	return out
}

// Decide says whether a path tool may read (write false) or write the
// canonical path (absolute, clean, free of symlinks: what the risk
// classifier resolved). A refusal is an *AccessError. Decide looks at
// the string only: a Guard checks what was opened.
func (a *Access) Decide(path string, write bool) error {
	a.Prepare()
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return &AccessError{Path: path, Write: write, Kind: Unresolved}
	}
	if isUnder(path, procRoot) {
		return &AccessError{Path: path, Write: write, Kind: ProcessFiles}
	}
	if write && a.readOnly {
		return &AccessError{Path: path, Write: true, Kind: ReadOnly}
	}
	if !write && a.underAny(path, a.readable) {
		return nil
	}
	for _, pr := range a.protected {
		if isUnder(path, pr) {
			return &AccessError{Path: path, Write: write, Kind: Protected, Rule: pr}
		}
	}
	if write && a.WritableRoot(path) == "" {
		return &AccessError{Path: path, Write: true, Kind: OutsideWritable, Roots: a.writable}
	}
	return nil
}

// WritableRoot is the deepest writable root path lies in ("" for none):
// the directory a write to path is made beneath.
func (a *Access) WritableRoot(path string) string {
	a.Prepare()
	best := ""
	for _, w := range a.writable {
		if isUnder(path, w) && len(w) > len(best) {
			best = w
		}
	}
	return best
}

// protectedName reports whether path is exactly a protected path (or
// /proc): a walk that started where Decide allowed need only ask this of
// each entry it reaches by name.
func (a *Access) protectedName(path string) error {
	switch {
	case path == procRoot:
		return &AccessError{Path: path, Kind: ProcessFiles}
	case a.protSet[path]:
		return &AccessError{Path: path, Kind: Protected, Rule: path}
	}
	return nil
}

func (a *Access) underAny(path string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return isUnder(path, r) })
}

// procRoot is where the kernel shows processes: for a path tool, odek's.
const procRoot = "/proc"

// canonicalizer resolves paths, remembering each one it resolved: the
// protected paths share a few parents (the home, ~/.config), so each
// costs about one lstat.
type canonicalizer map[string]string

// canonical is p cleaned with every symlink in it resolved, dangling ones
// too, and missing components taken literally (as the risk classifier
// resolves a path), so that a protected ~/.ssh under a symlinked home, one
// that is a link, or one that does not exist yet, matches the paths the
// classifier resolves.
func (c canonicalizer) canonical(p string) string {
	p = filepath.Clean(p)
	if r, ok := c[p]; ok {
		return r
	}
	if p == "/" || !filepath.IsAbs(p) {
		return p
	}
	c[p] = p // a symlink loop ends here, at the literal path
	parent := c.canonical(filepath.Dir(p))
	r := filepath.Join(parent, filepath.Base(p))
	if fi, err := os.Lstat(r); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// Followed like the classifier follows it, dangling or not: the
		// target is where a read or write of p lands.
		if t, err := os.Readlink(r); err == nil {
			if !filepath.IsAbs(t) {
				t = filepath.Join(parent, t)
			}
			r = c.canonical(t)
		}
	}
	c[p] = r
	return r
}

// Kind is why the map refuses a path.
type Kind int

// The map's reasons.
const (
	// Protected: the path is, or lies below, a protected path.
	Protected Kind = iota + 1
	// OutsideWritable: a write outside every writable root.
	OutsideWritable
	// ReadOnly: any write under a read-only policy.
	ReadOnly
	// ProcessFiles: /proc, which for a path tool is odek itself.
	ProcessFiles
	// Unresolved: not a canonical absolute path.
	Unresolved
)

// AccessError is a path the map refuses to a path tool; its text is
// written for the model: the path and why.
type AccessError struct {
	Path  string
	Write bool
	Kind  Kind
	// Rule is the protected path that refused it (Protected).
	Rule string
	// Alias: the file opened is Rule under another name (a hard link, a
	// bind mount, a directory moved in), found by its identity.
	Alias bool
	// Roots are the writable roots (OutsideWritable).
	Roots []string
}

// maxRootsShown caps the writable roots an error lists.
const maxRootsShown = 4

func (e *AccessError) Error() string {
	verb := "read"
	if e.Write {
		verb = "written"
	}
	switch e.Kind {
	case Protected:
		switch {
		case e.Alias:
			return fmt.Sprintf("%s is the protected path %s under another name (a hard link, a mount or a moved directory): it is never read or written", e.Path, e.Rule)
		case e.Rule == e.Path:
			return fmt.Sprintf("%s is a protected path: no tool reads or writes it", e.Path)
		}
		return fmt.Sprintf("%s is inside the protected path %s: no tool reads or writes it", e.Path, e.Rule)
	case OutsideWritable:
		roots := e.Roots
		more := ""
		if len(roots) > maxRootsShown {
			roots, more = roots[:maxRootsShown], fmt.Sprintf(" and %d more", len(e.Roots)-maxRootsShown)
		}
		where := "there are none"
		if len(roots) > 0 {
			where = "they are " + strings.Join(roots, ", ") + more
		}
		return fmt.Sprintf("%s is outside the sandbox's writable roots (%s): it cannot be written", e.Path, where)
	case ReadOnly:
		return fmt.Sprintf("the sandbox is read-only: %s cannot be written", e.Path)
	case ProcessFiles:
		return fmt.Sprintf("%s is in /proc, which for the path tools is odek's own process: it is never %s", e.Path, verb)
	}
	return fmt.Sprintf("%s is not a canonical absolute path: it cannot be %s", e.Path, verb)
}

// Refusal names the kind in a few words, for reports and warnings.
func (e *AccessError) Refusal() string {
	switch e.Kind {
	case Protected:
		return "protected path"
	case OutsideWritable:
		return "outside the writable roots"
	case ReadOnly:
		return "read-only sandbox"
	case ProcessFiles:
		return "odek's own /proc"
	}
	return "unresolved path"
}

// statIDs is the identities of the existing paths among paths, each as
// its own name leads (canonical forms are among the paths, so a symlink's
// target is there under its own name).
func statIDs(paths []string) map[fileID]string {
	ids := make(map[fileID]string, len(paths))
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil {
			if id, ok := idOf(fi); ok {
				if _, seen := ids[id]; !seen {
					ids[id] = p
				}
			}
		}
	}
	return ids
}

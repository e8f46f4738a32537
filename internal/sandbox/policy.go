package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Modes of sandbox.mode. Auto is workspace-write where the kernel offers
// Landlock and the classifier-only policy (with one warning) where it does
// not; the other three are what they say, and an explicit workspace-write or
// read-only without Landlock is a setup error.
const (
	ModeAuto           = "auto"
	ModeWorkspaceWrite = "workspace-write"
	ModeReadOnly       = "read-only"
	ModeOff            = "off"
)

// Modes lists the values of sandbox.mode, loosest first after auto.
var Modes = []string{ModeAuto, ModeOff, ModeWorkspaceWrite, ModeReadOnly}

// Rank orders modes by strictness: off < auto <= workspace-write < read-only.
// Auto ranks with workspace-write but below it, since an explicit
// workspace-write also refuses to run without Landlock.
func Rank(mode string) int {
	switch mode {
	case ModeOff:
		return 0
	case ModeAuto, "":
		return 1
	case ModeWorkspaceWrite:
		return 2
	case ModeReadOnly:
		return 3
	}
	return -1
}

// Policy is what one launched process may do. Paths are absolute. The
// rules Landlock enforces are opened once, by Prepare or PrepareLazily,
// never by name at a launch: see hold.go.
type Policy struct {
	// Mode is workspace-write, read-only or off (auto is resolved by the
	// caller before a Policy is built).
	Mode string `json:"mode"`
	// Network on lets the process open any socket and connect anywhere.
	Network bool `json:"network,omitempty"`
	// Workspace is writable in workspace-write mode, readable in both.
	Workspace string `json:"workspace"`
	// TempDir is the run's private temp dir: writable in every sandboxed mode.
	TempDir string `json:"tmpdir,omitempty"`
	// Writable are extra writable trees (workspace-write only): caches.
	Writable []string `json:"writable,omitempty"`
	// Readable are trees readable even inside a protected path.
	Readable []string `json:"readable,omitempty"`
	// Protected are the paths nothing may read (and so nothing may write).
	Protected []string `json:"protected,omitempty"`
	// Landlock false runs without Landlock (the kernel has none and the
	// mode allows the fallback); the other mechanisms still apply.
	Landlock bool `json:"landlock,omitempty"`
	// Launch carries, from Command to the launcher, what the launcher
	// gets as descriptors rather than paths.
	Launch *LaunchInfo `json:"launch,omitempty"`
	// held is the opened rules, shared by every copy of the policy made
	// after Prepare or PrepareLazily (a copy with Network changed
	// included: the file rules do not depend on it).
	held *holder
}

// LaunchInfo is what the launcher finds on its descriptors: the Landlock
// ruleset (fd RulesetFD, enforced with RulesetFlags) and, from
// firstRootFD on, one descriptor per writable root in the order of Roots.
type LaunchInfo struct {
	Ruleset      bool     `json:"ruleset,omitempty"`
	RulesetFlags uint32   `json:"ruleset_flags,omitempty"`
	Roots        []string `json:"roots,omitempty"`
}

// Sandboxed reports whether p confines anything.
func (p Policy) Sandboxed() bool { return p.Mode == ModeWorkspaceWrite || p.Mode == ModeReadOnly }

// Validate checks the mode and that every path is absolute.
func (p Policy) Validate() error {
	if p.Mode != ModeWorkspaceWrite && p.Mode != ModeReadOnly && p.Mode != ModeOff {
		return fmt.Errorf("%w: mode %q (want workspace-write, read-only or off)", ErrBadPolicy, p.Mode)
	}
	if !p.Sandboxed() {
		return nil
	}
	check := func(what, path string) error {
		if !filepath.IsAbs(path) {
			return fmt.Errorf("%w: %s %q is not an absolute path", ErrBadPolicy, what, path)
		}
		return nil
	}
	if err := check("workspace", p.Workspace); err != nil {
		return err
	}
	if p.TempDir != "" {
		if err := check("tmpdir", p.TempDir); err != nil {
			return err
		}
	}
	for _, list := range []struct {
		what  string
		paths []string
	}{{"writable path", p.Writable}, {"readable path", p.Readable}, {"protected path", p.Protected}} {
		for _, path := range list.paths {
			if err := check(list.what, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// Within narrows p so that it is never wider than limit: the stricter mode,
// network only when both allow it, writable and readable paths only those
// limit has (or that lie under one of limit's), every protected path of
// both. A sub-agent's policy is its own config's Within its parent's.
func (p Policy) Within(limit Policy) Policy {
	out := p
	out.held, out.Launch = nil, nil // other paths: to be prepared again
	if Rank(limit.Mode) > Rank(p.Mode) {
		out.Mode = limit.Mode
	}
	out.Network = p.Network && limit.Network
	out.Landlock = p.Landlock || limit.Landlock
	under := func(path string, roots []string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return isUnder(path, r) })
	}
	limitWritable := append([]string{limit.Workspace}, limit.Writable...)
	if limit.Mode == ModeReadOnly {
		limitWritable = nil
	}
	out.Writable = slices.DeleteFunc(slices.Clone(p.Writable), func(w string) bool { return !under(w, limitWritable) })
	out.Readable = slices.DeleteFunc(slices.Clone(p.Readable), func(r string) bool { return !under(r, limit.Readable) })
	out.Protected = append(slices.Clone(p.Protected), limit.Protected...)
	slices.Sort(out.Protected)
	out.Protected = slices.Compact(out.Protected)
	if limit.Mode == ModeOff {
		return out
	}
	if limit.Sandboxed() && !under(p.Workspace, []string{limit.Workspace}) && out.Mode == ModeWorkspaceWrite {
		out.Mode = ModeReadOnly // a workspace outside the parent's cannot be written
	}
	return out
}

// isUnder reports whether path is root or lies beneath it (lexically).
func isUnder(path, root string) bool {
	if root == "" || path == "" {
		return false
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !startsDotDot(rel) && !filepath.IsAbs(rel)
}

func startsDotDot(rel string) bool {
	return len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator)
}

// ProtectedInWorkspace lists the existing protected paths inside the
// workspace: Landlock grants the workspace as a whole, so they are not
// protected from the commands (nor, being workspace files, from the path
// tools).
func (p Policy) ProtectedInWorkspace() []string { return p.ProtectedUnder(p.Workspace) }

// ProtectedUnder lists the existing protected paths at or below root. A
// writable tree is granted as a whole too, reads included: a protected
// path under one is not protected.
func (p Policy) ProtectedUnder(root string) []string {
	var out []string
	for _, pr := range p.Protected {
		if isUnder(pr, root) {
			if _, err := os.Lstat(pr); err == nil {
				out = append(out, pr)
			}
		}
	}
	return out
}

package sandbox

import (
	"os"
	"sync"
)

// A rule re-opened by name at every launch follows whatever the name
// points to then: a command that can write the directory holding a rule's
// path swaps it for a symlink between two calls, and the next call gets
// the rule's access to the link's target. So a policy's rules are opened
// once, by Prepare or PrepareLazily, each path with no symlink in any
// component, and the Landlock ruleset is built from those descriptors in
// odek's own process. A launch receives the ruleset as a descriptor and
// enforces it; nothing is resolved by name after Prepare. A rule whose
// path holds a symlink when it is opened is not granted, with a warning.

// holder is a policy's opened rules, shared by its copies.
type holder struct {
	protected []string
	roots     []heldPath // every rule but the read set's, opened by Prepare
	once      sync.Once  // builds the ruleset, on the first launch or in Prepare
	ruleset   *os.File
	flags     uint32
	err       error
}

// heldPath is one granted path, opened without following a symlink.
type heldPath struct {
	path   string
	f      *os.File // O_PATH
	dir    bool
	access uint64 // Landlock rights (before the kernel's handled set)
	root   bool   // a writable root (not a device): the supervisor's map
}

// Prepare opens p's rules and builds its Landlock ruleset now. It returns
// a warning per rule it did not grant (its path held a symlink or could
// not be opened), and an error when a path the policy cannot do without
// (the workspace, the temp dir) cannot be opened safely. Call it after the
// last change to p's paths; copies made afterwards share what it opened.
func (p *Policy) Prepare() ([]string, error) {
	warns, err := p.hold()
	if err == nil && p.held != nil {
		_, _, err = p.held.build()
	}
	return warns, err
}

// PrepareLazily is Prepare with the ruleset's read set (a walk of the
// protected paths' ancestors: a large $HOME or a shared /tmp costs
// milliseconds) put off until the first Command that runs under p or a
// copy of it. The paths the rules name are opened now, all the same.
func (p *Policy) PrepareLazily() ([]string, error) { return p.hold() }

// Release closes what Prepare opened. The policy and its copies cannot
// launch anything afterwards.
func (p *Policy) Release() {
	h := p.held
	if h == nil {
		return
	}
	h.once.Do(func() { h.err = ErrReleased })
	for _, r := range h.roots {
		_ = r.f.Close()
	}
	if h.ruleset != nil {
		_ = h.ruleset.Close()
	}
}

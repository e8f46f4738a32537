//go:build !unix

package sandbox

import "os"

// fileID is a file's identity; without unix there is none to take.
type fileID struct{}

func idOf(os.FileInfo) (fileID, bool) { return fileID{}, false }

// heldIDs hold nothing where files cannot be opened safely.
type heldIDs struct{}

func holdIDs(Policy, []string, []string, []string) heldIDs { return heldIDs{} }

// Guard refuses everything where opened files cannot be checked (the path
// tools cannot open anything safely there either).
type Guard struct{ a *Access }

// Guard is a Guard that refuses every check.
func (a *Access) Guard() *Guard { return &Guard{a: a} }

// Read refuses: see Guard.
func (g *Guard) Read(_, _ *os.File, path string) error {
	return &AccessError{Path: path, Kind: Unresolved}
}

// Entry refuses: see Guard.
func (g *Guard) Entry(_ int, path string) error { return &AccessError{Path: path, Kind: Unresolved} }

// Write refuses: see Guard.
func (g *Guard) Write(_ *os.File, dirPath string) error {
	return &AccessError{Path: dirPath, Write: true, Kind: Unresolved}
}

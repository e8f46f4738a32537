package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/odek-run/odek/internal/safepath"
)

// Landlock rights of the rules.
const (
	rightsRead  = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	rightsWrite = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSTruncate
	// A writable tree also lets files move and link within and between
	// writable trees (refer), and its Unix sockets be connected to.
	rightsReadWrite = rightsRead | rightsWrite | ll.AccessFSRefer | ll.AccessFSResolveUnix
	// The rights a rule on a non-directory may hold.
	rightsFile = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
)

// hold opens every path p's rules grant by name (all but the read set,
// which build walks by descriptor), each without following a symlink.
func (p *Policy) hold() ([]string, error) {
	p.held, p.Launch = nil, nil
	if !p.Sandboxed() || !p.Landlock {
		return nil, nil
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	h := &holder{protected: slices.Clone(p.Protected)}
	var warns []string
	grant := func(what, path string, access uint64, root, required bool) error {
		hp, err := openHeld(path, access)
		switch {
		case err == nil:
			hp.root = root
			h.roots = append(h.roots, hp)
			return nil
		case errors.Is(err, fs.ErrNotExist) && !required:
			return nil // nothing to grant (go-landlock's IgnoreIfMissing)
		case required:
			return fmt.Errorf("sandbox: %s %s: %w", what, path, err)
		}
		warns = append(warns, fmt.Sprintf("sandbox: %s %s is not granted: %v", what, path, err))
		return nil
	}
	fail := func(err error) ([]string, error) {
		for _, r := range h.roots {
			_ = r.f.Close()
		}
		return warns, err
	}
	if p.Mode == ModeWorkspaceWrite {
		if err := grant("workspace", p.Workspace, rightsReadWrite, true, true); err != nil {
			return fail(err)
		}
		for _, w := range p.Writable {
			_ = grant("writable path", w, rightsReadWrite, true, false)
		}
	} else if err := grant("workspace", p.Workspace, rightsRead, false, true); err != nil {
		return fail(err)
	}
	if p.TempDir != "" {
		if err := grant("temp dir", p.TempDir, rightsReadWrite, true, true); err != nil {
			return fail(err)
		}
	}
	for _, r := range p.Readable {
		_ = grant("readable path", r, rightsRead, false, false)
	}
	for _, d := range devices {
		_ = grant("device", d, rightsRead|ll.AccessFSWriteFile|ll.AccessFSTruncate, false, false)
	}
	for _, d := range readDevices {
		_ = grant("device", d, rightsRead, false, false)
	}
	p.held = h
	return warns, nil
}

// openHeld opens path O_PATH with no symlink at any component. A symlink
// is reported with where it leads, so the warning can name the real path.
func openHeld(path string, access uint64) (heldPath, error) {
	slash, err := os.Open("/")
	if err != nil {
		return heldPath{}, err
	}
	defer slash.Close()
	rel := strings.TrimPrefix(filepath.Clean(path), "/")
	var f *os.File
	if rel == "" {
		f, err = os.OpenFile("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	} else {
		f, err = safepath.OpenBeneath(slash, rel, unix.O_PATH|unix.O_CLOEXEC)
	}
	if errors.Is(err, safepath.ErrSymlink) {
		if real, rerr := filepath.EvalSymlinks(path); rerr == nil {
			return heldPath{}, fmt.Errorf("a symlink in its path leads to %s (name that path instead)", real)
		}
		return heldPath{}, errors.New("a symlink in its path")
	}
	if err != nil {
		return heldPath{}, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return heldPath{}, err
	}
	return heldPath{path: filepath.Clean(path), f: f, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR, access: access}, nil
}

// build makes the ruleset once: the read set walked by descriptor, then
// the held paths.
func (h *holder) build() (*os.File, uint32, error) {
	h.once.Do(func() { h.ruleset, h.flags, h.err = h.makeRuleset() })
	return h.ruleset, h.flags, h.err
}

func (h *holder) makeRuleset() (*os.File, uint32, error) {
	cfg := landlock.V11
	cfg.HandledAccessNet = 0 // the network is a ruleset of its own, applied at launch
	fd, flags, err := cfg.BestEffort().NewRulesetFD()
	if err != nil {
		return nil, 0, fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return nil, 0, fmt.Errorf("%w: the kernel has no Landlock", ErrUnsupported)
	}
	rs := os.NewFile(uintptr(fd), "landlock ruleset")
	handled := handledFS()
	add := func(pathFD int, access uint64, dir bool) error {
		if !dir {
			access &= rightsFile
		}
		if access &= handled; access == 0 {
			return nil
		}
		return ll.LandlockAddPathBeneathRule(fd, &ll.PathBeneathAttr{ParentFd: pathFD, AllowedAccess: access}, 0)
	}
	err = walkReadSet(h.protected, func(path string, pfd int, kind entryKind) error {
		access := map[entryKind]uint64{kindTree: rightsRead, kindFile: rightsRead, kindList: ll.AccessFSReadDir}[kind]
		if err := add(pfd, access, kind != kindFile); err != nil {
			return fmt.Errorf("landlock rule for %s: %w", path, err)
		}
		return nil
	})
	for _, r := range h.roots {
		if err != nil {
			break
		}
		if err = add(int(r.f.Fd()), r.access, r.dir); err != nil {
			err = fmt.Errorf("landlock rule for %s: %w", r.path, err)
		}
	}
	if err != nil {
		rs.Close()
		return nil, 0, err
	}
	return rs, flags, nil
}

// handledFS is the file system rights the kernel's Landlock handles: what
// go-landlock's best effort keeps of V11's.
func handledFS() uint64 { return handledFSAt(landlockABI()) }

// handledFSAt is handledFS on a kernel whose Landlock ABI is abi (0: none).
func handledFSAt(abi int) uint64 {
	configs := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
		landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	v := min(abi, len(configs))
	if v < 1 {
		return 0
	}
	return uint64(configs[v-1].HandledAccessFS)
}

// launchFiles is what a launch of p passes the launcher beside its status
// pipe: the ruleset, then the writable roots (the supervisor's map).
func (p Policy) launchFiles() ([]*os.File, *LaunchInfo, error) {
	if !p.Sandboxed() || !p.Landlock {
		return nil, nil, nil
	}
	h := p.held
	if h == nil {
		return nil, nil, ErrNotPrepared
	}
	rs, flags, err := h.build()
	if err != nil {
		return nil, nil, err
	}
	files := []*os.File{rs}
	info := &LaunchInfo{Ruleset: true, RulesetFlags: flags}
	for _, r := range h.roots {
		if r.root {
			files = append(files, r.f)
			info.Roots = append(info.Roots, r.path)
		}
	}
	return files, info, nil
}

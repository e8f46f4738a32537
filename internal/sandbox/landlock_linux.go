package sandbox

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// devices are the device files every sandboxed command may write, and
// readDevices those it may only read; /dev is protected, so no other
// device is readable.
var (
	devices     = []string{"/dev/null", "/dev/zero", "/dev/full"}
	readDevices = []string{"/dev/random", "/dev/urandom"}
)

// landlockConfig is the strongest configuration go-landlock knows, without
// the network rights when p lets the network on; BestEffort downgrades it to
// what the kernel offers (Probe reports which).
func landlockConfig(p Policy) landlock.Config {
	cfg := landlock.V11
	if p.Network {
		cfg.HandledAccessNet = 0
	}
	return cfg.BestEffort()
}

// landlockRules are p's grants: reads of the read set, listing of the
// protected paths' ancestors, writes of the workspace (workspace-write),
// the temp dir, the writable paths and the harmless devices.
func landlockRules(p Policy) []landlock.Rule {
	trees, files, listOnly := p.ReadTrees, p.ReadFiles, p.ListOnly
	if !p.Prepared {
		trees, files, listOnly = readSet(p.Protected)
	}
	rules := []landlock.Rule{
		landlock.RODirs(trees...).IgnoreIfMissing(),
		landlock.ROFiles(files...).IgnoreIfMissing(),
		landlock.PathAccess(ll.AccessFSReadDir, listOnly...).IgnoreIfMissing(),
		landlock.RWFiles(existing(devices)...).IgnoreIfMissing(),
		landlock.ROFiles(existing(readDevices)...).IgnoreIfMissing(),
	}
	for _, r := range p.Readable {
		rules = append(rules, pathRule(r, false))
	}
	writable := []string{}
	if p.TempDir != "" {
		writable = append(writable, p.TempDir)
	}
	if p.Mode == ModeWorkspaceWrite {
		writable = append(writable, p.Workspace)
		writable = append(writable, p.Writable...)
	} else {
		rules = append(rules, pathRule(p.Workspace, false))
	}
	for _, w := range writable {
		rules = append(rules, pathRule(w, true))
	}
	return rules
}

// pathRule grants one tree (or file) for reading, or reading and writing
// with renames and links inside the writable trees.
func pathRule(path string, write bool) landlock.Rule {
	fi, err := os.Stat(path)
	dir := err != nil || fi.IsDir()
	switch {
	case write && dir:
		return landlock.RWDirs(path).WithRefer().WithResolveUnix().IgnoreIfMissing()
	case write:
		return landlock.RWFiles(path).IgnoreIfMissing()
	case dir:
		return landlock.RODirs(path).IgnoreIfMissing()
	}
	return landlock.ROFiles(path).IgnoreIfMissing()
}

func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// restrictThread puts the calling thread (locked, no_new_privs set) into a
// new Landlock domain built from p.
func restrictThread(p Policy) error {
	cfg := landlockConfig(p)
	fd, flags, err := cfg.NewRulesetFD(landlockRules(p)...)
	if err != nil {
		return fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("%w: the kernel has no Landlock", ErrUnsupported)
	}
	defer func() { _ = closeFD(fd) }()
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

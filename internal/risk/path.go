package risk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// place is where a path resolves.
type place int

const (
	inside     place = iota // inside the working directory
	outside                 // anywhere else
	sink                    // /dev/null, /dev/stdout and the like: writing there changes nothing
	rawDevice               // disks, memory, sysrq: never written
	unknowable              // computed at run time, or relative after a cd odek cannot follow
)

// maxLinkHops bounds symlink resolution, like the kernel's ELOOP limit.
const maxLinkHops = 40

var errLinkLoop = errors.New("too many levels of symbolic links")

// resolve makes p (absolute) canonical the way the kernel walks it: one
// component at a time, following every symlink where it appears (so
// "link/.." is the link target's parent, not "."), including dangling ones,
// whose target is where a write would land. Components that do not exist are
// taken literally.
func resolve(p string) (string, fs.FileMode, error) { return resolveAt("/", p) }

// resolveFrom is resolve that starts at the (already canonical) working
// directory when p lies below it, saving an Lstat per component of root.
func (c *Classifier) resolveFrom(p string) (string, fs.FileMode, error) {
	if rest, ok := strings.CutPrefix(p, c.root+"/"); ok && c.root != "/" {
		return resolveAt(c.root, rest)
	}
	return resolve(p)
}

// resolveAt resolves the path p relative to the canonical directory cur.
func resolveAt(cur, p string) (string, fs.FileMode, error) {
	rest := strings.Split(p, "/")
	var mode fs.FileMode
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			cur, mode = next, 0 // does not exist (or cannot be seen): literal from here
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur, mode = next, fi.Mode()
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", 0, errLinkLoop
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", 0, err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, mode, nil
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/") || root == "/"
}

// placeOf says where a write (or read) of a resolved absolute path lands.
func (c *Classifier) placeOf(abs string) (place, string) {
	if d, ok := devicePlace(filepath.Clean(abs)); ok {
		return d, filepath.Clean(abs) // /dev/stdout is a link into /proc: judge the name
	}
	r, mode, err := c.resolveFrom(abs)
	if err != nil {
		return unknowable, abs
	}
	if d, ok := devicePlace(r); ok {
		return d, r
	}
	if mode&fs.ModeDevice != 0 && mode&fs.ModeCharDevice == 0 {
		return rawDevice, r // a block device node wherever it was made
	}
	if within(r, c.root) {
		return inside, r
	}
	return outside, r
}

// sinks are devices whose writes change nothing that matters.
var sinks = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/full": true, "/dev/stdout": true, "/dev/stderr": true,
	"/dev/stdin": true, "/dev/tty": true, "/dev/random": true, "/dev/urandom": true,
}

// rawPrefixes are disks, memory and kernel triggers.
var rawPrefixes = []string{
	"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/mapper/",
	"/dev/dm-", "/dev/loop", "/dev/md", "/dev/sr", "/dev/nbd", "/dev/rbd", "/dev/zram", "/dev/mem",
	"/dev/kmem", "/dev/port", "/dev/block/", "/dev/rdisk", "/proc/sysrq-trigger", "/proc/kcore",
}

// devicePlace classifies paths under /dev and /proc by name.
func devicePlace(p string) (place, bool) {
	if !strings.HasPrefix(p, "/dev/") && !strings.HasPrefix(p, "/proc/") {
		return 0, false
	}
	if sinks[p] || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/") {
		return sink, true
	}
	for _, pre := range rawPrefixes {
		if strings.HasPrefix(p, pre) {
			return rawDevice, true
		}
	}
	return outside, true
}

// Op is what a path tool does with its path.
type Op int

// Path operations.
const (
	Read  Op = iota // read_file, list_dir, glob, search_files
	Write           // write_file, patch
)

// Path classifies a path tool's operation by where p really resolves
// (relative to the working directory, ".." and every symlink followed):
// inside the working directory a read is safe and a write local_write;
// outside it either is system_write; a raw device is blocked. It also
// returns the resolved path, which the tool should use. Home expands "~".
func (c *Classifier) Path(op Op, p string) (Assessment, string) {
	abs := c.absolute(c.root, p)
	if abs == "" {
		return Assessment{Class: SystemWrite, Set: Of(SystemWrite), Reason: "~user paths are outside the working directory", Inspect: op == Read}, ""
	}
	pl, r := c.placeOf(abs)
	verb := map[Op]string{Read: "reads", Write: "writes"}[op]
	a := Assessment{Inspect: op == Read}
	switch {
	case pl == rawDevice:
		a.Class, a.Reason, a.Inspect = Blocked, verb+" a raw device ("+r+")", false
	case pl == inside && op == Read:
		a.Class, a.Reason = Safe, "reads inside the working directory"
	case pl == inside:
		a.Class, a.Reason = LocalWrite, "writes inside the working directory"
	case pl == unknowable:
		a.Class, a.Reason = SystemWrite, "the path cannot be resolved"
	default:
		a.Class, a.Reason = SystemWrite, verb+" outside the working directory ("+r+")"
	}
	a.Set = Of(a.Class)
	return a, r
}

// absolute joins p to cwd, expanding "~" and "~/…" to Home; "" for "~user"
// or an unknown home.
func (c *Classifier) absolute(cwd, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if c.home == "" {
			return ""
		}
		return c.home + p[1:]
	}
	if strings.HasPrefix(p, "~") {
		return ""
	}
	if filepath.IsAbs(p) {
		return p
	}
	return cwd + "/" + p
}

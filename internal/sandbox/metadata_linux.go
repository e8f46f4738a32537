//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/odek-run/odek/internal/safepath"
)

// metaOp is what a supervised call does to its file.
type metaOp int

const (
	opChmod metaOp = iota
	opChown
	opTimes // utimensat's timespecs
	opTimesVal
	opTimesBuf
	opSetxattr
	opRemovexattr
)

// metaCall is one supervised call, decoded from its arguments.
type metaCall struct {
	op metaOp
	// The file: the caller's descriptor fd (fchmod and the like), or path
	// (an address in the caller) relative to dir (AT_FDCWD or a
	// descriptor), with flags' AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH.
	fd    int
	dir   int
	path  uintptr
	flags int
	// What is done: the mode, the owner, the times (an address; 0 is
	// "now"), the attribute's name, value and size and its flags.
	mode     uint32
	uid, gid int
	times    uintptr
	name     uintptr
	value    uintptr
	size     uint64
	xflags   int
}

const atFDCWD = unix.AT_FDCWD

// decodeMeta decodes the call nr with arguments a; false for a call the
// supervisor does not handle.
func decodeMeta(nr int, a [6]uint64) (metaCall, bool) {
	fdc := func(op metaOp) metaCall { return metaCall{op: op, fd: int(int32(a[0]))} }
	at := func(op metaOp, flags int) metaCall {
		return metaCall{op: op, fd: -1, dir: int(int32(a[0])), path: uintptr(a[1]), flags: flags}
	}
	path := func(op metaOp, nofollow bool) metaCall {
		c := metaCall{op: op, fd: -1, dir: atFDCWD, path: uintptr(a[0])}
		if nofollow {
			c.flags = unix.AT_SYMLINK_NOFOLLOW
		}
		return c
	}
	var c metaCall
	switch nr {
	case unix.SYS_FCHMOD:
		c = fdc(opChmod)
		c.mode = uint32(a[1])
	case unix.SYS_FCHMODAT:
		c = at(opChmod, 0)
		c.mode = uint32(a[2])
	case unix.SYS_FCHMODAT2:
		c = at(opChmod, int(a[3]))
		c.mode = uint32(a[2])
	case unix.SYS_FCHOWN:
		c = fdc(opChown)
		c.uid, c.gid = int(int32(a[1])), int(int32(a[2]))
	case unix.SYS_FCHOWNAT:
		c = at(opChown, int(a[4]))
		c.uid, c.gid = int(int32(a[2])), int(int32(a[3]))
	case unix.SYS_UTIMENSAT:
		if a[1] == 0 { // futimens: the descriptor itself
			c = fdc(opTimes)
		} else {
			c = at(opTimes, int(a[3]))
		}
		c.times = uintptr(a[2])
	case unix.SYS_SETXATTR, unix.SYS_LSETXATTR:
		c = path(opSetxattr, nr == unix.SYS_LSETXATTR)
		c.name, c.value, c.size, c.xflags = uintptr(a[1]), uintptr(a[2]), a[3], int(a[4])
	case unix.SYS_FSETXATTR:
		c = fdc(opSetxattr)
		c.name, c.value, c.size, c.xflags = uintptr(a[1]), uintptr(a[2]), a[3], int(a[4])
	case unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR:
		c = path(opRemovexattr, nr == unix.SYS_LREMOVEXATTR)
		c.name = uintptr(a[1])
	case unix.SYS_FREMOVEXATTR:
		c = fdc(opRemovexattr)
		c.name = uintptr(a[1])
	default:
		return decodeLegacy(nr, a, path)
	}
	return c, true
}

// serve performs one notification's call and returns its errno (0: done).
func (s *supervisor) serve(n *seccompNotif) unix.Errno {
	c, ok := decodeMeta(int(n.Data.Nr), n.Data.Args)
	if !ok || len(s.roots) == 0 {
		return unix.EPERM
	}
	pid := int(n.Pid)
	obj, errno := s.open(pid, c)
	if errno != 0 {
		return errno
	}
	defer unix.Close(obj)
	chk, errno := s.beneath(obj)
	if errno != 0 {
		return errno
	}
	defer unix.Close(chk)
	args, errno := readArgs(pid, c)
	if errno != 0 {
		return errno
	}
	if !s.valid(n.ID) {
		return unix.ENOENT // the caller is gone; nobody reads this answer
	}
	return act(c, chk, args)
}

// open opens the file the call names, O_PATH, as the caller would reach
// it.
func (s *supervisor) open(pid int, c metaCall) (int, unix.Errno) {
	proc := fmt.Sprintf("/proc/%d/", pid)
	if c.fd >= 0 {
		return openErrno(unix.Open(proc+fmt.Sprintf("fd/%d", c.fd), unix.O_PATH|unix.O_CLOEXEC, 0))
	}
	path, errno := readString(pid, c.path, unix.PathMax)
	if errno != 0 {
		return -1, errno
	}
	path = ownProc(path, pid)
	base := proc + "cwd"
	switch {
	case strings.HasPrefix(path, "/"):
		base, path = proc+"root", fromRoot(path)
	case c.dir != atFDCWD:
		base = proc + fmt.Sprintf("fd/%d", c.dir)
	}
	if path == "" {
		if c.flags&unix.AT_EMPTY_PATH == 0 {
			return -1, unix.ENOENT
		}
		path = "."
		if c.dir != atFDCWD { // the descriptor itself, whatever it is
			return openErrno(unix.Open(base, unix.O_PATH|unix.O_CLOEXEC, 0))
		}
	}
	dir, errno := openErrno(unix.Open(base, unix.O_PATH|unix.O_CLOEXEC, 0))
	if errno != 0 {
		return -1, errno
	}
	defer unix.Close(dir)
	flags := unix.O_PATH | unix.O_CLOEXEC
	if c.flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
		flags |= unix.O_NOFOLLOW
	}
	return openErrno(unix.Openat(dir, path, flags, 0))
}

// ownProc rewrites the names a process uses for its own /proc entries
// (tar chmods "/proc/self/fd/3", a script "/dev/fd/4"), which resolved here
// would name the supervisor's.
func ownProc(path string, pid int) string {
	for _, own := range []struct{ prefix, to string }{
		{"/proc/self", fmt.Sprintf("/proc/%d", pid)},
		{"/proc/thread-self", fmt.Sprintf("/proc/%d/task/%d", pid, pid)},
		{"/dev/fd", fmt.Sprintf("/proc/%d/fd", pid)},
	} {
		if rest, ok := strings.CutPrefix(path, own.prefix); ok && (rest == "" || rest[0] == '/') {
			return own.to + rest
		}
	}
	return path
}

func openErrno(fd int, err error) (int, unix.Errno) {
	if err != nil {
		if e, ok := err.(unix.Errno); ok {
			return -1, e
		}
		return -1, unix.EPERM
	}
	return fd, 0
}

// beneath returns a descriptor of obj's file reached from a writable root
// without a symlink, or EPERM when no root holds it.
func (s *supervisor) beneath(obj int) (int, unix.Errno) {
	where, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", obj))
	if err != nil || !strings.HasPrefix(where, "/") || strings.HasSuffix(where, " (deleted)") {
		return -1, unix.EPERM
	}
	var want unix.Stat_t
	if unix.Fstat(obj, &want) != nil {
		return -1, unix.EPERM
	}
	for _, r := range s.roots {
		rel, ok := strings.CutPrefix(where, strings.TrimSuffix(r.path, "/")+"/")
		if where == r.path {
			rel, ok = ".", true
		}
		if !ok {
			continue
		}
		fd, err := safepath.OpenFD(r.f, rel, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		if err != nil {
			continue
		}
		var got unix.Stat_t
		if unix.Fstat(fd, &got) == nil && got.Dev == want.Dev && got.Ino == want.Ino {
			return fd, 0
		}
		_ = unix.Close(fd)
	}
	return -1, unix.EPERM
}

// metaArgs is what a call's pointers held, read before acting.
type metaArgs struct {
	times []unix.Timespec // nil: now
	name  string
	value []byte
}

// Limits of the kernel's own: an attribute's name and value.
const (
	xattrNameMax = 255
	xattrSizeMax = 64 << 10
)

func readArgs(pid int, c metaCall) (metaArgs, unix.Errno) {
	var a metaArgs
	var errno unix.Errno
	switch c.op {
	case opTimes, opTimesVal, opTimesBuf:
		a.times, errno = readTimes(pid, c.op, c.times)
	case opSetxattr, opRemovexattr:
		if a.name, errno = readName(pid, c.name); errno != 0 {
			return a, errno
		}
		if c.op == opSetxattr {
			if c.size > xattrSizeMax {
				return a, unix.E2BIG
			}
			a.value, errno = readMemory(pid, c.value, int(c.size))
		}
	}
	return a, errno
}

// act performs c on the file held by fd (O_PATH, reached beneath a root).
func act(c metaCall, fd int, a metaArgs) unix.Errno {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return unix.EPERM
	}
	link := st.Mode&unix.S_IFMT == unix.S_IFLNK
	self := fmt.Sprintf("/proc/self/fd/%d", fd) // the magic link reaches exactly this file
	var err error
	switch c.op {
	case opChmod:
		if c.mode&setIDBits != 0 {
			return unix.EPERM // the filter refuses them already
		}
		if link {
			return unix.EOPNOTSUPP // Linux has no mode on a symlink
		}
		err = unix.Fchmodat(unix.AT_FDCWD, self, c.mode, 0)
	case opChown:
		err = unix.Fchownat(fd, "", c.uid, c.gid, unix.AT_EMPTY_PATH)
	case opTimes, opTimesVal, opTimesBuf:
		if link {
			return unix.EPERM // a symlink's own times: not supervised
		}
		err = utimensat(self, a.times)
	case opSetxattr:
		if link {
			return unix.EPERM
		}
		err = unix.Setxattr(self, a.name, a.value, c.xflags)
	case opRemovexattr:
		if link {
			return unix.EPERM
		}
		err = unix.Removexattr(self, a.name)
	}
	if err != nil {
		if e, ok := err.(unix.Errno); ok {
			return e
		}
		return unix.EPERM
	}
	return 0
}

// utimensat sets path's times (nil: both now).
func utimensat(path string, ts []unix.Timespec) error {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	var tp unsafe.Pointer
	if ts != nil {
		tp = unsafe.Pointer(&ts[0])
	}
	cwd := unix.AT_FDCWD
	_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(cwd), uintptr(unsafe.Pointer(p)), uintptr(tp), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// fromRoot is an absolute path made relative to the root it starts at, its
// slashes dropped rather than "." put before them: a path of the kernel's
// greatest length (4095 bytes) must not grow past it here.
func fromRoot(path string) string {
	if rel := strings.TrimLeft(path, "/"); rel != "" {
		return rel
	}
	return "."
}

// readName reads an attribute's name as the kernel does: one over its
// limit is ERANGE, not a path's ENAMETOOLONG.
func readName(pid int, addr uintptr) (string, unix.Errno) {
	name, errno := readString(pid, addr, xattrNameMax+1)
	if errno == unix.ENAMETOOLONG {
		errno = unix.ERANGE
	}
	return name, errno
}

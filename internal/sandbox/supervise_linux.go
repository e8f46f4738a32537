//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock has no right for a file's metadata: mode, owner, times and
// extended attributes. A confined command could chmod ~/.ssh/id_rsa 644,
// chmod 666 $ODEK_HOME/secrets.env, touch -d outside the workspace or, run
// as root, chmod 666 /etc/shadow (a root without capabilities still owns
// root's files). So the seccomp filter sends every metadata call to a
// supervisor in the launcher (SECCOMP_RET_USER_NOTIF), which performs it
// itself, only on a file beneath one of the policy's writable roots, and
// answers the command with the result:
//
//   - the file is the one the command named: its path is read from the
//     command's memory and resolved from the command's own working
//     directory, directory descriptor or root (/proc/<pid>/cwd, fd, root),
//     following a final symlink exactly when the call would;
//   - it must lie beneath a writable root: the root's descriptor (held
//     since Prepare) reaches the same inode by a symlink-free path
//     (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS). A file cannot move
//     in from outside (Landlock refuses the rename), so what is beneath a
//     root now was made there or is the operator's own hard link;
//   - the supervisor acts on that descriptor, never on a path again, on a
//     thread without capabilities: as root it can do no more than the
//     command itself could;
//   - a call whose caller is gone by then (its pid reused) is dropped.
//
// The filter already refuses setuid and setgid bits. A command that
// cannot be supervised (the listener is refused: odek sandboxed inside
// another supervisor) gets EPERM for every metadata call instead.

// supervised reports whether p's commands get a supervisor: only with
// Landlock, whose writable roots are what the supervisor allows.
func supervised(p Policy) bool {
	return p.Sandboxed() && p.Landlock && p.Launch != nil && p.Launch.Ruleset && filterArch != 0
}

// heldRoots are the writable roots the launcher holds, from fd
// firstRootFD on in the order of p.Launch.Roots.
func heldRoots(p Policy) []supRoot {
	var out []supRoot
	for i, path := range p.Launch.Roots {
		out = append(out, supRoot{path: path, f: os.NewFile(uintptr(firstRootFD+i), path)})
	}
	return out
}

type supRoot struct {
	path string
	f    *os.File
}

// The kernel's notification structures (linux/seccomp.h).
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// supervise answers the listener's notifications until the launcher
// exits. It runs on a thread of its own whose capabilities are dropped,
// so that it acts with no more than the command's own rights.
func supervise(listener int, roots []supRoot) {
	runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
	if err := dropThreadCapabilities(); err != nil {
		// Acting with more rights than the command is no option: every
		// call is then refused.
		roots = nil
	}
	s := &supervisor{listener: listener, roots: roots}
	for {
		var n seccompNotif
		if err := s.ioctl(unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue // a signal, or a caller gone before it was received
			}
			return
		}
		errno := s.serve(&n)
		resp := seccompNotifResp{ID: n.ID, Error: -int32(errno)}
		_ = s.ioctl(unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp)) // ENOENT: the caller is gone
	}
}

type supervisor struct {
	listener int
	roots    []supRoot
}

func (s *supervisor) ioctl(req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(s.listener), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// valid reports whether notification id still waits: its caller has not
// died (and its pid been reused) since it was received.
func (s *supervisor) valid(id uint64) bool {
	return s.ioctl(unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// dropThreadCapabilities empties the calling thread's capability sets
// (capset acts on one thread; the rest of the launcher keeps its own).
func dropThreadCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return unix.Capset(&hdr, &data[0])
}

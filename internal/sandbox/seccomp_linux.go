//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The filter is hand-written classic BPF rather than a library's: it is a
// hundred-odd instructions of call numbers and argument checks, and a
// policy-compiling dependency would be larger than the filter. Rules:
//   - a foreign architecture's system call (i386 int 0x80 on amd64) kills
//     the process: its numbers mean other calls; x32 calls (amd64,
//     nr ≥ 0x40000000) fail with ENOSYS;
//   - keyctl, add_key and request_key fail with EPERM: the session keyring
//     may hold the operator's credentials;
//   - nothing reaches into another process: prlimit64, sched_setaffinity,
//     sched_setscheduler, sched_setparam, sched_setattr, migrate_pages and
//     move_pages only on the caller itself (pid 0), setpriority and
//     ioprio_set only on the caller or its own process group (who 0, never
//     a whole user), and kcmp, process_vm_readv/writev, process_madvise
//     and pidfd_getfd not at all: EPERM. (Signals, pidfd_send_signal
//     included, and ptrace are Landlock's scope rules.)
//   - the launcher's thread that holds the policy (launcherTID, the
//     command's parent thread) is in the command's domain, where scoping
//     allows signals: every call that names a thread to signal fails with
//     EPERM when it names that one — kill, tkill, rt_sigqueueinfo and
//     pidfd_open by their first argument, tgkill and rt_tgsigqueueinfo by
//     their second, fcntl F_SETOWN by its third (SIGIO, or any signal
//     F_SETSIG names, goes to the owner) — and so do the owner calls whose
//     id the filter cannot read: fcntl F_SETOWN_EX and the sockets' ioctl
//     FIOSETOWN and SIOCSPGRP;
//   - no setuid or setgid bit is set anywhere: chmod, fchmod, fchmodat,
//     fchmodat2 with S_ISUID or S_ISGID fail with EPERM, and so do open,
//     openat, creat, mknod and mknodat asking for them in the new file's
//     mode. openat2 fails with ENOSYS (its mode is inside a struct the
//     filter cannot read; callers fall back to openat), io_uring_setup
//     with ENOSYS (its operations, setxattr among them, bypass the filter),
//     setxattrat and removexattrat with ENOSYS (callers fall back);
//   - metadata writes — the chmod, chown, utime and xattr families — go to
//     the launcher's supervisor (SECCOMP_RET_USER_NOTIF), which performs
//     them only on files beneath a writable root (supervise_linux.go);
//     where there is no supervisor they fail with EPERM;
//   - with the network off: socket() fails with EACCES for every family but
//     AF_UNIX, and for AF_UNIX too when Landlock cannot restrict connecting
//     to pathname sockets (ABI < 9): those reach daemons outside the sandbox
//     (systemd, docker, an ssh or gpg agent). socketpair() stays allowed;
//   - everything else is allowed (Landlock holds files, TCP and signals).
const (
	bpfLdAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet   = unix.BPF_RET | unix.BPF_K

	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits of args[0] on a little-endian machine; args[i] at offArg0+8i

	setIDBits = unix.S_ISUID | unix.S_ISGID
)

// filterSpec is what one filter is built for.
type filterSpec struct {
	networkOff  bool
	unixSockets bool // socket(AF_UNIX) allowed with the network off
	supervised  bool // metadata calls go to the supervisor, else fail
	// launcherTID is the launcher thread that holds the policy (0: none),
	// which no call may signal.
	launcherTID uint32
}

// modeCall is a call that takes a file mode in argument arg.
type modeCall struct {
	nr  uint32
	arg int
}

// The call lists of both architectures; legacyModeMeta and the like add
// amd64's older calls (seccomp_linux_amd64.go).
var (
	epermCalls = []uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KCMP,
		unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PROCESS_MADVISE, unix.SYS_PIDFD_GETFD}
	nosysCalls = []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_OPENAT2, unix.SYS_SETXATTRAT, unix.SYS_REMOVEXATTRAT}
	selfCalls  = []uint32{unix.SYS_PRLIMIT64, unix.SYS_SCHED_SETAFFINITY, unix.SYS_SCHED_SETSCHEDULER,
		unix.SYS_SCHED_SETPARAM, unix.SYS_SCHED_SETATTR, unix.SYS_MIGRATE_PAGES, unix.SYS_MOVE_PAGES}
	// chmod family: a set-id bit fails, the rest goes to the supervisor.
	modeMetaCalls = append([]modeCall{{unix.SYS_FCHMOD, 1}, {unix.SYS_FCHMODAT, 2}, {unix.SYS_FCHMODAT2, 2}}, legacyModeMeta...)
	// file creation: a set-id bit fails, the rest is allowed.
	modeCreateCalls = append([]modeCall{{unix.SYS_OPENAT, 3}, {unix.SYS_MKNODAT, 2}}, legacyModeCreate...)
	metaCalls       = append([]uint32{unix.SYS_FCHOWN, unix.SYS_FCHOWNAT, unix.SYS_UTIMENSAT,
		unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR,
		unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR}, legacyMeta...)
)

// asm builds a BPF program whose jumps name labels.
type asm struct {
	prog   []unix.SockFilter
	labels map[string]int
	fix    []fixup
}

type fixup struct {
	at     int
	jt, jf string
}

func (a *asm) stmt(code uint16, k uint32) { a.prog = append(a.prog, unix.SockFilter{Code: code, K: k}) }

// jump: if the accumulator matches k (by code), go to jt, else to jf ("" =
// the next instruction).
func (a *asm) jump(code uint16, k uint32, jt, jf string) {
	a.fix = append(a.fix, fixup{len(a.prog), jt, jf})
	a.prog = append(a.prog, unix.SockFilter{Code: code, K: k})
}

func (a *asm) label(name string) { a.labels[name] = len(a.prog) }

// ret is a label that returns action.
func (a *asm) ret(name string, action uint32) {
	a.label(name)
	a.stmt(bpfRet, action)
}

func (a *asm) done() []unix.SockFilter {
	for _, f := range a.fix {
		off := func(l string) uint8 {
			if l == "" {
				return 0
			}
			to, ok := a.labels[l]
			d := to - f.at - 1
			if !ok || d < 0 || d > 255 {
				panic(fmt.Sprintf("seccomp filter: jump to %q out of range (%d)", l, d))
			}
			return uint8(d)
		}
		a.prog[f.at].Jt, a.prog[f.at].Jf = off(f.jt), off(f.jf)
	}
	return a.prog
}

// filter returns the program for spec.
func filter(spec filterSpec) []unix.SockFilter {
	a := &asm{labels: map[string]int{}}
	a.stmt(bpfLdAbs, offArch)
	a.jump(bpfJeq, filterArch, "", "kill")
	a.stmt(bpfLdAbs, offNr)
	if x32Bit != 0 {
		a.jump(bpfJge, x32Bit, "nosys", "")
	}
	for _, nr := range epermCalls {
		a.jump(bpfJeq, nr, "eperm", "")
	}
	for _, nr := range nosysCalls {
		a.jump(bpfJeq, nr, "nosys", "")
	}
	for _, nr := range selfCalls {
		a.jump(bpfJeq, nr, "self", "")
	}
	a.jump(bpfJeq, unix.SYS_SETPRIORITY, "prio", "")
	a.jump(bpfJeq, unix.SYS_IOPRIO_SET, "ioprio", "")
	for _, c := range modeMetaCalls {
		a.jump(bpfJeq, c.nr, fmt.Sprintf("modemeta%d", c.arg), "")
	}
	for _, c := range modeCreateCalls {
		a.jump(bpfJeq, c.nr, fmt.Sprintf("modecreate%d", c.arg), "")
	}
	for _, nr := range metaCalls {
		a.jump(bpfJeq, nr, "meta", "")
	}
	if spec.networkOff {
		a.jump(bpfJeq, unix.SYS_SOCKET, "socket", "")
	}
	if spec.launcherTID != 0 {
		for _, c := range signalCalls {
			a.jump(bpfJeq, c.nr, fmt.Sprintf("tid%d", c.arg), "")
		}
		a.jump(bpfJeq, unix.SYS_FCNTL, "fcntl", "")
		a.jump(bpfJeq, unix.SYS_IOCTL, "ioctl", "")
	}
	a.stmt(bpfRet, unix.SECCOMP_RET_ALLOW)
	if spec.launcherTID != 0 {
		guardLauncher(a, spec.launcherTID)
	}
	// Calls on a process: pid (or who) 0 is the caller.
	a.label("self")
	a.stmt(bpfLdAbs, offArg0)
	a.jump(bpfJeq, 0, "allow", "eperm")
	a.label("prio") // setpriority(which, who, …): PRIO_PROCESS or PRIO_PGRP, who 0
	a.stmt(bpfLdAbs, offArg0)
	a.jump(bpfJeq, unix.PRIO_PROCESS, "who0", "")
	a.jump(bpfJeq, unix.PRIO_PGRP, "who0", "eperm")
	a.label("ioprio") // ioprio_set(which, who, …): IOPRIO_WHO_PROCESS (1) or _PGRP (2), who 0
	a.stmt(bpfLdAbs, offArg0)
	a.jump(bpfJeq, 1, "who0", "")
	a.jump(bpfJeq, 2, "who0", "eperm")
	a.label("who0")
	a.stmt(bpfLdAbs, offArg0+8)
	a.jump(bpfJeq, 0, "allow", "eperm")
	for _, kind := range []string{"modemeta", "modecreate"} {
		next := map[string]string{"modemeta": "meta", "modecreate": "allow"}[kind]
		for _, arg := range []int{1, 2, 3} {
			a.label(fmt.Sprintf("%s%d", kind, arg))
			a.stmt(bpfLdAbs, uint32(offArg0+8*arg))
			a.jump(bpfJset, setIDBits, "eperm", next)
		}
	}
	metaAction := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	if spec.supervised {
		metaAction = unix.SECCOMP_RET_USER_NOTIF
	}
	a.ret("meta", metaAction)
	a.label("socket")
	if spec.unixSockets {
		a.stmt(bpfLdAbs, offArg0)
		a.jump(bpfJeq, unix.AF_UNIX, "allow", "")
	}
	a.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES))
	a.ret("allow", unix.SECCOMP_RET_ALLOW)
	a.ret("eperm", unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	a.ret("nosys", unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	a.ret("kill", unix.SECCOMP_RET_KILL_PROCESS)
	return a.done()
}

// idCall is a call that takes a process or thread id in argument arg.
type idCall struct {
	nr  uint32
	arg int
}

// signalCalls name a thread to signal (or, pidfd_open, to get a
// descriptor to signal) in argument arg.
var signalCalls = []idCall{{unix.SYS_KILL, 0}, {unix.SYS_TKILL, 0}, {unix.SYS_RT_SIGQUEUEINFO, 0},
	{unix.SYS_PIDFD_OPEN, 0}, {unix.SYS_TGKILL, 1}, {unix.SYS_RT_TGSIGQUEUEINFO, 1}}

// The sockets' ioctls that set a file's owner (linux/sockios.h).
const (
	ioctlFIOSETOWN = 0x8901
	ioctlSIOCSPGRP = 0x8902
)

// guardLauncher adds the labels that refuse a call naming tid (see
// signalCalls) and the owner calls: fcntl F_SETOWN with tid, F_SETOWN_EX,
// ioctl FIOSETOWN and SIOCSPGRP. Ids are compared on their low 32 bits,
// which is all the kernel reads of a pid_t.
func guardLauncher(a *asm, tid uint32) {
	a.label("fcntl")
	a.stmt(bpfLdAbs, offArg0+8)
	a.jump(bpfJeq, unix.F_SETOWN_EX, "eperm", "")
	a.jump(bpfJeq, unix.F_SETOWN, "tid2", "allow")
	a.label("ioctl")
	a.stmt(bpfLdAbs, offArg0+8)
	a.jump(bpfJeq, ioctlFIOSETOWN, "eperm", "")
	a.jump(bpfJeq, ioctlSIOCSPGRP, "eperm", "allow")
	for _, arg := range []int{0, 1, 2} {
		a.label(fmt.Sprintf("tid%d", arg))
		a.stmt(bpfLdAbs, uint32(offArg0+8*arg))
		a.jump(bpfJeq, tid, "eperm", "allow")
	}
}

// Flags of seccomp(SECCOMP_SET_MODE_FILTER) not in x/sys.
const (
	// filterFlagWaitKillableRecv (Linux 5.19): once the supervisor has
	// received a call, only a fatal signal interrupts the caller's wait,
	// so Go's preemption signals do not restart metadata calls.
	filterFlagWaitKillableRecv = 1 << 5
)

// installFilter installs the filter on the calling thread (the launcher's
// locked thread that forks the target; no_new_privs set).
// With spec.supervised it returns the listener the supervisor reads the
// metadata calls from; where the kernel gives none (a listener is already
// installed above this process: odek sandboxed inside odek, or a
// container engine's), it installs the filter without one, metadata calls
// failing, and returns -1.
func installFilter(spec filterSpec) (listener int, err error) {
	if !spec.supervised {
		return -1, seccomp(filter(spec), 0)
	}
	prog := filter(spec)
	for _, flags := range []uintptr{unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | filterFlagWaitKillableRecv, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER} {
		fd, err := seccompFD(prog, flags)
		if err == nil {
			return fd, nil
		}
		if !errors.Is(err, unix.EINVAL) {
			break
		}
	}
	spec.supervised = false
	return -1, seccomp(filter(spec), 0)
}

func seccomp(prog []unix.SockFilter, flags uintptr) error {
	_, err := seccompFD(prog, flags)
	return err
}

func seccompFD(prog []unix.SockFilter, flags uintptr) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

//go:build linux && (amd64 || arm64)

package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The filter is hand-written classic BPF rather than a library's: it is a
// couple of dozen instructions (check the architecture, then a few call
// numbers and socket()'s family), and a policy-compiling dependency would
// be larger than the filter. Rules, in order:
//   - a foreign architecture's system call (i386 int 0x80 on amd64) kills
//     the process: its numbers mean other calls;
//   - x32 calls (amd64, nr ≥ 0x40000000) fail with ENOSYS;
//   - keyctl, add_key and request_key fail with EPERM: the session keyring
//     may hold the operator's credentials;
//   - with the network off: socket() fails with EACCES for every family but
//     AF_UNIX, and for AF_UNIX too when Landlock cannot restrict connecting
//     to pathname sockets (ABI < 9): those reach daemons outside the sandbox
//     (systemd, docker, an ssh or gpg agent). socketpair() stays allowed.
//     io_uring_setup fails with ENOSYS (io_uring opens sockets without
//     socket(2));
//   - everything else is allowed (Landlock holds files, TCP and signals).
const (
	bpfLdAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRet   = unix.BPF_RET | unix.BPF_K

	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits of args[0] on a little-endian machine
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

func (a *asm) done() []unix.SockFilter {
	for _, f := range a.fix {
		off := func(l string) uint8 {
			if l == "" {
				return 0
			}
			return uint8(a.labels[l] - f.at - 1)
		}
		a.prog[f.at].Jt, a.prog[f.at].Jf = off(f.jt), off(f.jf)
	}
	return a.prog
}

// filter returns the program for a policy with the network off or on;
// unixSockets allows socket(AF_UNIX) with the network off.
func filter(networkOff, unixSockets bool) []unix.SockFilter {
	a := &asm{labels: map[string]int{}}
	a.stmt(bpfLdAbs, offArch)
	a.jump(bpfJeq, filterArch, "", "kill")
	a.stmt(bpfLdAbs, offNr)
	if x32Bit != 0 {
		a.jump(bpfJge, x32Bit, "nosys", "")
	}
	for _, nr := range []uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY} {
		a.jump(bpfJeq, nr, "eperm", "")
	}
	if networkOff {
		a.jump(bpfJeq, unix.SYS_SOCKET, "socket", "")
		a.jump(bpfJeq, unix.SYS_IO_URING_SETUP, "nosys", "")
	}
	a.stmt(bpfRet, unix.SECCOMP_RET_ALLOW)
	a.label("socket")
	if unixSockets {
		a.stmt(bpfLdAbs, offArg0)
		a.jump(bpfJeq, unix.AF_UNIX, "allow", "")
	}
	a.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES))
	a.label("allow")
	a.stmt(bpfRet, unix.SECCOMP_RET_ALLOW)
	a.label("eperm")
	a.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	a.label("nosys")
	a.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	a.label("kill")
	a.stmt(bpfRet, unix.SECCOMP_RET_KILL_PROCESS)
	return a.done()
}

// installFilter installs the filter on the calling thread (the launcher's
// locked thread, which starts the target). no_new_privs must be set.
func installFilter(networkOff, unixSockets bool) error {
	prog := filter(networkOff, unixSockets)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}

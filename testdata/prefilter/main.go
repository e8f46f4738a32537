// Command prefilter runs a program under a seccomp filter of the kind odek
// meets where it is deployed, so that the sandbox's tests can show what
// holds there: prefilter PROFILE program [args…]. Profiles:
//
//	nouserns    unshare and clone with CLONE_NEWUSER fail with EPERM, clone3
//	            with ENOSYS (a host with user namespaces turned off)
//	container   nouserns, plus what a container runtime's default profile
//	            refuses: keyring calls, mount and its kin, reboot, kexec,
//	            module loading, swap, time and BPF (EPERM)
//	nolandlock  the three Landlock calls fail with ENOSYS (a kernel built
//	            without Landlock, or a runtime profile that does not know it)
//
// The filter is installed on every thread (TSYNC) with no_new_privs and the
// program executed under it, as a container's init would be.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: prefilter nouserns|container|nolandlock program [args…]")
		os.Exit(2)
	}
	prog, err := program(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "prefilter:", err)
		os.Exit(2)
	}
	path, err := exec.LookPath(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "prefilter:", err)
		os.Exit(127)
	}
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "prefilter: no_new_privs:", err)
		os.Exit(2)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		fmt.Fprintln(os.Stderr, "prefilter: seccomp:", errno)
		os.Exit(2)
	}
	err = syscall.Exec(path, os.Args[2:], os.Environ())
	fmt.Fprintln(os.Stderr, "prefilter: exec:", err)
	os.Exit(126)
}

const (
	ldNr   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	jset   = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	ret    = unix.BPF_RET | unix.BPF_K
	allow  = unix.SECCOMP_RET_ALLOW
	eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// rule is one call and what it gets; flagArg ≥ 0 checks CLONE_NEWUSER in
// that argument instead of refusing the call outright.
type rule struct {
	nr      uint32
	action  uint32
	flagArg int
}

// program builds the filter: a list of calls, each checked in turn.
func program(profile string) ([]unix.SockFilter, error) {
	var rules []rule
	nouserns := []rule{{unix.SYS_UNSHARE, eperm, 0}, {unix.SYS_CLONE, eperm, 0}, {unix.SYS_CLONE3, enosys, -1}}
	switch profile {
	case "nouserns":
		rules = nouserns
	case "container":
		rules = append(nouserns, containerRules()...)
	case "nolandlock":
		rules = []rule{{unix.SYS_LANDLOCK_CREATE_RULESET, enosys, -1}, {unix.SYS_LANDLOCK_ADD_RULE, enosys, -1},
			{unix.SYS_LANDLOCK_RESTRICT_SELF, enosys, -1}}
	default:
		return nil, fmt.Errorf("unknown profile %q", profile)
	}
	var p []unix.SockFilter
	for _, r := range rules {
		p = append(p, unix.SockFilter{Code: ldNr, K: 0})
		if r.flagArg < 0 {
			p = append(p, unix.SockFilter{Code: jeq, K: r.nr, Jt: 0, Jf: 1}, unix.SockFilter{Code: ret, K: r.action})
			continue
		}
		// if nr matches and the argument has CLONE_NEWUSER: refuse.
		p = append(p, unix.SockFilter{Code: jeq, K: r.nr, Jt: 0, Jf: 3},
			unix.SockFilter{Code: ldNr, K: uint32(16 + 8*r.flagArg)},
			unix.SockFilter{Code: jset, K: unix.CLONE_NEWUSER, Jt: 0, Jf: 1},
			unix.SockFilter{Code: ret, K: r.action})
	}
	return append(p, unix.SockFilter{Code: ret, K: allow}), nil
}

// containerRules are calls a container runtime's default profile refuses
// to an unprivileged container (the ones odek's paths could meet).
func containerRules() []rule {
	var out []rule
	for _, nr := range []uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_MOUNT,
		unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_REBOOT, unix.SYS_KEXEC_LOAD, unix.SYS_INIT_MODULE,
		unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_SETTIMEOFDAY,
		unix.SYS_CLOCK_SETTIME, unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_FSOPEN, unix.SYS_OPEN_TREE,
		unix.SYS_MOVE_MOUNT, unix.SYS_SETNS} {
		out = append(out, rule{nr, eperm, -1})
	}
	return out
}

//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// noSuchUID owns no process: a call naming a user names nobody.
const noSuchUID = 0x7ffff00d

// probeProcessOps are the calls the filter refuses or narrows, and what
// the capabilities and no_new_privs leave. "_pid" names the caller by its
// own pid (the filter cannot tell it from another process's), "_self" by
// 0, which is allowed.
var probeProcessOps = map[string]probeOp{
	"keyctl": func(string) string {
		_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_SESSION_KEYRING, 1, 0, 0)
		return result(err)
	},
	"add_key": func(string) string {
		_, err := unix.AddKey("user", "odek-probe", []byte("x"), unix.KEY_SPEC_PROCESS_KEYRING)
		return result(err)
	},
	"request_key": func(string) string { // no callout: the kernel answers ENOKEY itself
		return result(errOf(unix.Syscall6(unix.SYS_REQUEST_KEY, uintptr(unsafe.Pointer(cstr("user"))),
			uintptr(unsafe.Pointer(cstr("odek-probe-missing"))), 0, 0, 0, 0)))
	},
	"kcmp": func(string) string {
		pid := uintptr(os.Getpid())
		return result(errOf(unix.Syscall6(unix.SYS_KCMP, pid, pid, 1 /* KCMP_VM */, 0, 0, 0)))
	},
	"process_vm_readv": func(string) string {
		src, dst := []byte("abcd"), make([]byte, 4)
		_, err := unix.ProcessVMReadv(os.Getpid(), iov(dst), riov(src), 0)
		return result(err)
	},
	"process_vm_writev": func(string) string {
		src, dst := []byte("abcd"), make([]byte, 4)
		_, err := unix.ProcessVMWritev(os.Getpid(), iov(src), riov(dst), 0)
		return result(err)
	},
	"pidfd_getfd": func(string) string {
		pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
		if err != nil {
			return "pidfd_open-" + result(err)
		}
		defer unix.Close(pidfd)
		return result(fdOfErr(unix.PidfdGetfd(pidfd, 1, 0)))
	},
	"process_madvise": func(string) string {
		pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
		if err != nil {
			return "pidfd_open-" + result(err)
		}
		defer unix.Close(pidfd)
		page, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err != nil {
			return "mmap-" + result(err)
		}
		defer unix.Munmap(page)
		v := iov(page)
		return result(errOf(unix.Syscall6(unix.SYS_PROCESS_MADVISE, uintptr(pidfd), uintptr(unsafe.Pointer(&v[0])), 1,
			unix.MADV_COLD, 0, 0)))
	},
	"openat2": func(string) string {
		return result(fdOfErr(unix.Openat2(unix.AT_FDCWD, ".", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC})))
	},
	"io_uring_setup": func(string) string {
		var params [120]byte
		return result(fdOf(unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)))
	},
	"setxattrat": func(path string) string {
		value := []byte("v")
		args := struct {
			value      uint64
			size, flag uint32
		}{uint64(uintptr(unsafe.Pointer(&value[0]))), 1, 0}
		return result(errOf(unix.Syscall6(unix.SYS_SETXATTRAT, cwdFD, uintptr(unsafe.Pointer(cstr(path))), 0,
			uintptr(unsafe.Pointer(cstr("user.odek-probe"))), uintptr(unsafe.Pointer(&args)), unsafe.Sizeof(args))))
	},
	"removexattrat": func(path string) string {
		return result(errOf(unix.Syscall6(unix.SYS_REMOVEXATTRAT, cwdFD, uintptr(unsafe.Pointer(cstr(path))), 0,
			uintptr(unsafe.Pointer(cstr("user.odek-probe"))), 0, 0)))
	},

	"prlimit_pid":  func(string) string { return prlimit(os.Getpid()) },
	"prlimit_self": func(string) string { return prlimit(0) },
	"sched_setaffinity_pid": func(string) string {
		return setaffinity(os.Getpid())
	},
	"sched_setaffinity_self": func(string) string { return setaffinity(0) },
	"sched_setscheduler_pid": func(string) string {
		var param int32
		return result(errOf(unix.Syscall(unix.SYS_SCHED_SETSCHEDULER, uintptr(os.Getpid()), 0, uintptr(unsafe.Pointer(&param)))))
	},
	"sched_setparam_pid": func(string) string {
		var param int32
		return result(errOf(unix.Syscall(unix.SYS_SCHED_SETPARAM, uintptr(os.Getpid()), uintptr(unsafe.Pointer(&param)), 0)))
	},
	"sched_setattr_pid": func(string) string {
		attr, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			return "sched_getattr-" + result(err)
		}
		return result(unix.SchedSetAttr(os.Getpid(), attr, 0))
	},
	"migrate_pages_pid": func(string) string {
		nodes := uint64(1)
		return result(errOf(unix.Syscall6(unix.SYS_MIGRATE_PAGES, uintptr(os.Getpid()), 64,
			uintptr(unsafe.Pointer(&nodes)), uintptr(unsafe.Pointer(&nodes)), 0, 0)))
	},
	"move_pages_pid": func(string) string {
		return result(errOf(unix.Syscall6(unix.SYS_MOVE_PAGES, uintptr(os.Getpid()), 0, 0, 0, 0, 0)))
	},
	"setpriority_pid":  func(string) string { return setpriority(unix.PRIO_PROCESS, os.Getpid()) },
	"setpriority_user": func(string) string { return setpriority(unix.PRIO_USER, noSuchUID) },
	"setpriority_self": func(string) string { return setpriority(unix.PRIO_PROCESS, 0) },
	"setpriority_pgrp": func(string) string { return ownGroup(func() string { return setpriority(unix.PRIO_PGRP, 0) }) },
	"ioprio_set_pid":   func(string) string { return ioprioSet(1, os.Getpid()) },
	"ioprio_set_user":  func(string) string { return ioprioSet(3, noSuchUID) },
	"ioprio_set_self":  func(string) string { return ioprioSet(1, 0) },
	"ioprio_set_pgrp":  func(string) string { return ownGroup(func() string { return ioprioSet(2, 0) }) },
	// IOPRIO_WHO_USER 0 is the caller's own user, all its processes, odek
	// too. An invalid class (7) makes the kernel refuse it (EINVAL) before
	// it touches anyone, so the unconfined control changes nothing; the
	// filter must refuse it first (EPERM).
	"ioprio_set_own_user": func(string) string {
		return result(errOf(unix.Syscall(unix.SYS_IOPRIO_SET, 3, 0, 7<<13)))
	},

	"socket_inet":  func(string) string { return socket(unix.AF_INET, unix.SOCK_STREAM, 0) },
	"socket_inet6": func(string) string { return socket(unix.AF_INET6, unix.SOCK_DGRAM, 0) },
	"socket_unix":  func(string) string { return socket(unix.AF_UNIX, unix.SOCK_STREAM, 0) },
	"socket_netlink": func(string) string {
		return socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
	},
	"socketpair_unix": func(string) string {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return result(err)
	},

	// What the process holds: capability sets as hex, the bounding and
	// ambient sets bit by bit, no_new_privs and the seccomp mode.
	"caps": func(string) string {
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			return result(err)
		}
		return fmt.Sprintf("eff=%08x%08x,prm=%08x%08x,inh=%08x%08x", data[1].Effective, data[0].Effective,
			data[1].Permitted, data[0].Permitted, data[1].Inheritable, data[0].Inheritable)
	},
	"capbnd":  func(string) string { return capBits(unix.PR_CAPBSET_READ, 0) },
	"ambient": func(string) string { return capBits(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_IS_SET) },
	"nnp": func(string) string {
		v, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
		if err != nil {
			return result(err)
		}
		return strconv.Itoa(v)
	},
	"seccomp": func(string) string {
		v, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
		if err != nil {
			return result(err)
		}
		return strconv.Itoa(v)
	},
	// A new UTS namespace needs CAP_SYS_ADMIN.
	"unshare_uts": func(string) string { return result(unix.Unshare(unix.CLONE_NEWUTS)) },
	// A character device needs CAP_MKNOD (Landlock grants making one in a
	// writable tree).
	"mknod_char": func(p string) string { return result(unix.Mknodat(unix.AT_FDCWD, p, unix.S_IFCHR|0o600, 0x0103)) },
}

func iov(b []byte) []unix.Iovec {
	v := []unix.Iovec{{Base: &b[0]}}
	v[0].SetLen(len(b))
	return v
}

func riov(b []byte) []unix.RemoteIovec {
	return []unix.RemoteIovec{{Base: uintptr(unsafe.Pointer(&b[0])), Len: len(b)}}
}

// ownGroup runs f in a process group of the probe's own: the kernel
// refuses a change of priority to a group holding a process with more
// capabilities than the caller (the launcher, run as root).
func ownGroup(f func() string) string {
	if err := unix.Setpgid(0, 0); err != nil {
		return "setpgid-" + result(err)
	}
	return f()
}

func prlimit(pid int) string {
	var l unix.Rlimit
	return result(unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &l))
}

func setaffinity(pid int) string {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return "getaffinity-" + result(err)
	}
	return result(unix.SchedSetaffinity(pid, &set))
}

// setpriority sets the nice value the caller already has.
func setpriority(which, who int) string {
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return "getpriority-" + result(err)
	}
	return result(unix.Setpriority(which, who, 20-raw))
}

// ioprioSet sets the I/O priority the caller already has.
func ioprioSet(which, who int) string {
	cur, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, 1, 0, 0)
	if e != 0 {
		return "ioprio_get-" + result(e)
	}
	return result(errOf(unix.Syscall(unix.SYS_IOPRIO_SET, uintptr(which), uintptr(who), cur)))
}

func socket(domain, typ, proto int) string {
	return result(fdOfErr(unix.Socket(domain, typ|unix.SOCK_CLOEXEC, proto)))
}

// capBits is the set of capabilities for which prctl(op, arg, cap) says 1,
// as hex, asked cap by cap up to the first the kernel does not know.
func capBits(op, arg int) string {
	var bits uint64
	for c := 0; c < 64; c++ {
		var v int
		var err error
		if arg == 0 {
			v, err = unix.PrctlRetInt(op, uintptr(c), 0, 0, 0)
		} else {
			v, err = unix.PrctlRetInt(op, uintptr(arg), uintptr(c), 0, 0)
		}
		if err != nil {
			break
		}
		if v == 1 {
			bits |= 1 << c
		}
	}
	return strconv.FormatUint(bits, 16)
}

// The metadata calls, each on the file its arg names: "+s" in the name
// asks for the setuid bit (04755), "+g" for setgid (02755), none for 0640.
// The create calls make the file their arg names.
var probeMetaOps = map[string]probeOp{}

func init() {
	type metaFn func(path string, mode uint32) error
	calls := map[string]metaFn{
		"fchmod": func(p string, mode uint32) error {
			return withFD(p, func(fd int) error { return errOf(unix.Syscall(unix.SYS_FCHMOD, uintptr(fd), uintptr(mode), 0)) })
		},
		"fchmodat": func(p string, mode uint32) error {
			return errOf(unix.Syscall6(unix.SYS_FCHMODAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))), uintptr(mode), 0, 0, 0))
		},
		"fchmodat2": func(p string, mode uint32) error {
			return errOf(unix.Syscall6(unix.SYS_FCHMODAT2, cwdFD, uintptr(unsafe.Pointer(cstr(p))), uintptr(mode), 0, 0, 0))
		},
		"openat_create": func(p string, mode uint32) error {
			return fdOf(unix.Syscall6(unix.SYS_OPENAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))),
				unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, uintptr(mode), 0, 0))
		},
		"mknodat": func(p string, mode uint32) error {
			return errOf(unix.Syscall6(unix.SYS_MKNODAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))),
				uintptr(unix.S_IFREG|mode), 0, 0, 0))
		},
		"fchown": func(p string, _ uint32) error {
			return withFD(p, func(fd int) error {
				return errOf(unix.Syscall(unix.SYS_FCHOWN, uintptr(fd), uintptr(os.Getuid()), uintptr(os.Getgid())))
			})
		},
		"fchownat": func(p string, _ uint32) error {
			return errOf(unix.Syscall6(unix.SYS_FCHOWNAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))),
				uintptr(os.Getuid()), uintptr(os.Getgid()), 0, 0))
		},
		// Another owner: only CAP_CHOWN gives a file away.
		"fchownat_other": func(p string, _ uint32) error {
			return errOf(unix.Syscall6(unix.SYS_FCHOWNAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))),
				12345, 12345, 0, 0))
		},
		// The link itself, not what it points to.
		"fchownat_nofollow": func(p string, _ uint32) error {
			return errOf(unix.Syscall6(unix.SYS_FCHOWNAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))),
				uintptr(os.Getuid()), uintptr(os.Getgid()), unix.AT_SYMLINK_NOFOLLOW, 0))
		},
		// A value over the kernel's 64 KiB limit for one attribute.
		"setxattr_big": func(p string, _ uint32) error {
			value := make([]byte, 1<<20)
			return errOf(unix.Syscall6(unix.SYS_SETXATTR, uintptr(unsafe.Pointer(cstr(p))),
				uintptr(unsafe.Pointer(cstr("user.odek-probe"))), uintptr(unsafe.Pointer(&value[0])), uintptr(len(value)), 0, 0))
		},
		"utimensat": func(p string, _ uint32) error {
			return errOf(unix.Syscall6(unix.SYS_UTIMENSAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))), 0, 0, 0, 0))
		},
		"futimens": func(p string, _ uint32) error {
			return withFD(p, func(fd int) error {
				return errOf(unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, 0, 0, 0, 0))
			})
		},
		"setxattr": func(p string, _ uint32) error {
			return xattr(unix.SYS_SETXATTR, uintptr(unsafe.Pointer(cstr(p))), true)
		},
		"lsetxattr": func(p string, _ uint32) error {
			return xattr(unix.SYS_LSETXATTR, uintptr(unsafe.Pointer(cstr(p))), true)
		},
		"fsetxattr": func(p string, _ uint32) error {
			return withFD(p, func(fd int) error { return xattr(unix.SYS_FSETXATTR, uintptr(fd), true) })
		},
		"removexattr": func(p string, _ uint32) error {
			return xattr(unix.SYS_REMOVEXATTR, uintptr(unsafe.Pointer(cstr(p))), false)
		},
		"lremovexattr": func(p string, _ uint32) error {
			return xattr(unix.SYS_LREMOVEXATTR, uintptr(unsafe.Pointer(cstr(p))), false)
		},
		"fremovexattr": func(p string, _ uint32) error {
			return withFD(p, func(fd int) error { return xattr(unix.SYS_FREMOVEXATTR, uintptr(fd), false) })
		},
	}
	for name, fn := range legacyMetaCalls {
		calls[name] = fn
	}
	for name, fn := range calls {
		probeMetaOps[name] = func(p string) string { return result(fn(p, 0o640)) }
		probeMetaOps[name+"+s"] = func(p string) string { return result(fn(p, 0o4755)) }
		probeMetaOps[name+"+g"] = func(p string) string { return result(fn(p, 0o2755)) }
	}
}

// withFD runs f on p opened for reading (what fchmod and the like take).
func withFD(p string, f func(fd int) error) error {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer unix.Close(fd)
	return f(fd)
}

// xattr sets (or removes) user.odek-probe on what target names (a path
// pointer or a descriptor).
func xattr(nr uintptr, target uintptr, set bool) error {
	name := cstr("user.odek-probe")
	if !set {
		return errOf(unix.Syscall(nr, target, uintptr(unsafe.Pointer(name)), 0))
	}
	value := []byte("v")
	return errOf(unix.Syscall6(nr, target, uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(&value[0])), 1, 0, 0))
}

// The metadata calls of this architecture, by kind: those that take a
// mode, those that create a file with one, and the others.
var (
	chmodOps  = append([]string{"fchmod", "fchmodat", "fchmodat2"}, legacyChmodOps...)
	createOps = append([]string{"openat_create", "mknodat"}, legacyCreateOps...)
	otherMeta = append([]string{"fchown", "fchownat", "utimensat", "futimens", "setxattr", "lsetxattr", "fsetxattr",
		"removexattr", "lremovexattr", "fremovexattr"}, legacyOtherMetaOps...)
)

// cwdFD is AT_FDCWD as a system call argument.
var cwdFD = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()

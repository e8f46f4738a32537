package sandbox

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// amd64's older calls, which arm64 never had: the filter lists them
// beside the *at forms, and a list that forgot one would let it through.
var legacyMetaCalls = map[string]func(p string, mode uint32) error{
	"chmod": func(p string, mode uint32) error {
		return errOf(unix.Syscall(unix.SYS_CHMOD, uintptr(unsafe.Pointer(cstr(p))), uintptr(mode), 0))
	},
	"chown": func(p string, _ uint32) error {
		return errOf(unix.Syscall(unix.SYS_CHOWN, uintptr(unsafe.Pointer(cstr(p))), uintptr(os.Getuid()), uintptr(os.Getgid())))
	},
	"lchown": func(p string, _ uint32) error {
		return errOf(unix.Syscall(unix.SYS_LCHOWN, uintptr(unsafe.Pointer(cstr(p))), uintptr(os.Getuid()), uintptr(os.Getgid())))
	},
	"utime": func(p string, _ uint32) error {
		return errOf(unix.Syscall(unix.SYS_UTIME, uintptr(unsafe.Pointer(cstr(p))), 0, 0))
	},
	"utimes": func(p string, _ uint32) error {
		return errOf(unix.Syscall(unix.SYS_UTIMES, uintptr(unsafe.Pointer(cstr(p))), 0, 0))
	},
	"futimesat": func(p string, _ uint32) error {
		return errOf(unix.Syscall(unix.SYS_FUTIMESAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))), 0))
	},
	"open_create": func(p string, mode uint32) error {
		return fdOf(unix.Syscall(unix.SYS_OPEN, uintptr(unsafe.Pointer(cstr(p))), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, uintptr(mode)))
	},
	"creat": func(p string, mode uint32) error {
		return fdOf(unix.Syscall(unix.SYS_CREAT, uintptr(unsafe.Pointer(cstr(p))), uintptr(mode), 0))
	},
	"mknod": func(p string, mode uint32) error {
		return errOf(unix.Syscall(unix.SYS_MKNOD, uintptr(unsafe.Pointer(cstr(p))), uintptr(unix.S_IFREG|mode), 0))
	},
}

var (
	legacyChmodOps     = []string{"chmod"}
	legacyCreateOps    = []string{"open_create", "creat", "mknod"}
	legacyOtherMetaOps = []string{"chown", "lchown", "utime", "utimes", "futimesat"}
)

// probeArchOps: a call made through another architecture's numbers. An
// x32 call (nr | 0x40000000) fails; an i386 call (int 0x80, whose numbers
// mean other calls: its 20 is getpid, amd64's writev) kills the process.
var probeArchOps = map[string]probeOp{
	"x32_keyctl": func(string) string {
		return result(errOf(unix.Syscall6(0x40000000|unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, ^uintptr(2) /* KEY_SPEC_SESSION_KEYRING, -3 */, 1, 0, 0, 0)))
	},
	"int80_getpid": func(string) string {
		// mov eax, 20; int 0x80; ret
		code := []byte{0xb8, 0x14, 0x00, 0x00, 0x00, 0xcd, 0x80, 0xc3}
		page, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE|unix.PROT_EXEC, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err != nil {
			return "mmap-" + result(err)
		}
		copy(page, code)
		// A func value points to a word holding the code's address.
		entry := &page[0]
		fv := &entry
		call := *(*func())(unsafe.Pointer(&fv))
		call()
		return "ok"
	},
}

// TestForeignArchitectureKills: an i386 call (int 0x80) from a confined
// process kills it (SIGSYS: the launcher exits 128+31), where the same
// call unconfined returns. Skipped where the kernel takes no i386 calls.
func TestForeignArchitectureKills(t *testing.T) {
	t.Parallel()
	needFilter(t)
	if ctl := probeControlCode(t, "int80_getpid"); ctl != "int80_getpid ok\n" {
		t.Skipf("the kernel takes no i386 call here (unconfined: %q)", ctl)
	}
	p, _ := confinedPolicy(t, true)
	code, got := probeRun(t, p, "int80_getpid")
	if code != 128+int(unix.SIGSYS) || got["int80_getpid"] != "" {
		t.Errorf("exit %d, probe %q; want 128+SIGSYS and no answer", code, got)
	}
}

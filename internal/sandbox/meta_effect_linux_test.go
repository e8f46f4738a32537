//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Metadata calls whose effect, not only their answer, the tests below
// check; added to the probe's ops (probeOps is made before any init runs).
func init() {
	ops := map[string]func(p string) error{
		// fchmod on descriptor 0: a descriptor call like any other.
		"fchmod_fd0": func(p string) error {
			return withFD(p, func(fd int) error {
				if err := unix.Dup2(fd, 0); err != nil {
					return err
				}
				return errOf(unix.Syscall(unix.SYS_FCHMOD, 0, 0o640, 0))
			})
		},
		// fchmodat2 on a symlink itself: Linux has no mode on one.
		"fchmodat2_nofollow": func(p string) error {
			return errOf(unix.Syscall6(unix.SYS_FCHMODAT2, cwdFD, uintptr(unsafe.Pointer(cstr(p))), 0o640, unix.AT_SYMLINK_NOFOLLOW, 0, 0))
		},
		// chown to one's own uid, the group left as it is (-1).
		"fchownat_keepgroup": func(p string) error {
			keep := -1
			return errOf(unix.Syscall6(unix.SYS_FCHOWNAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))), uintptr(os.Getuid()), uintptr(keep), 0, 0))
		},
		// A value size far over the kernel's 64 KiB limit, over a 1-byte
		// buffer: the kernel refuses it (E2BIG) before reading any of it.
		"setxattr_huge": func(p string) error {
			value := []byte("v")
			return errOf(unix.Syscall6(unix.SYS_SETXATTR, uintptr(unsafe.Pointer(cstr(p))),
				uintptr(unsafe.Pointer(cstr("user.odek-probe"))), uintptr(unsafe.Pointer(&value[0])), 1<<40, 0, 0))
		},
	}
	for name, fn := range ops {
		probeOps[name] = func(p string) string { return result(fn(p)) }
	}
}

// TestMetadataCallsTakeEffect: the supervisor does what a confined call
// in the workspace asks, exactly, and says so only when it has: a chmod
// (by path, by descriptor, by descriptor 0) sets the mode asked; a chown
// that leaves the group (-1) keeps it; fchmodat2 and lsetxattr on a
// symlink act on the link itself (which takes neither: the kernel's own
// answer), never on its target; an attribute size the kernel refuses is
// refused alike, before the supervisor reads the caller's memory for it.
func TestMetadataCallsTakeEffect(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	name := func(n string) string { return filepath.Join(ws, n) }
	const group = 12345
	plant := func() {
		for _, f := range []string{"chmod", "fchmod", "fd0", "chown", "target", "big"} {
			if err := os.WriteFile(name(f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(name(f), 0o644); err != nil {
				t.Fatal(err)
			}
			_ = unix.Removexattr(name(f), "user.odek-probe")
		}
		if err := os.Lchown(name("chown"), os.Getuid(), group); err != nil {
			t.Skipf("cannot give a file another group here: %v", err)
		}
		_ = os.Remove(name("link"))
		if err := os.Symlink(name("target"), name("link")); err != nil {
			t.Fatal(err)
		}
	}
	plant()
	if err := unix.Setxattr(name("target"), "user.odek-probe", []byte("v"), 0); err != nil {
		t.Skipf("no user attributes here: %v", err)
	}
	_ = unix.Removexattr(name("target"), "user.odek-probe")
	ops := []string{"fchmodat:" + name("chmod"), "fchmod:" + name("fchmod"), "fchmod_fd0:" + name("fd0"),
		"fchownat_keepgroup:" + name("chown"), "fchmodat2_nofollow:" + name("link"), "lsetxattr:" + name("link"),
		"setxattr_huge:" + name("big")}
	control := probeControl(t, ops...)
	plant()
	_, got := probeRun(t, p, ops...)
	for _, op := range ops {
		if got[op] != control[op] {
			t.Errorf("%s: confined %q, unconfined %q", op, got[op], control[op])
		}
	}
	for _, f := range []string{"chmod", "fchmod", "fd0"} {
		if st, err := os.Stat(name(f)); err != nil || st.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v (%v) after a chmod to 0640 the supervisor answered", f, st.Mode().Perm(), err)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(name("chown"), &st); err != nil || st.Gid != group {
		t.Errorf("chown with group -1: group %d (%v), want %d kept", st.Gid, err, group)
	}
	if st, err := os.Stat(name("target")); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("fchmodat2 AT_SYMLINK_NOFOLLOW on a link changed its target: %v (%v)", st.Mode().Perm(), err)
	}
	if _, err := unix.Getxattr(name("target"), "user.odek-probe", nil); err == nil {
		t.Error("lsetxattr on a link set the attribute on its target")
	}
}

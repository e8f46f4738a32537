//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The supervisor reads a caller's strings (a path, an attribute's name)
// page by page out of its memory, bounded by the kernel's own limits. These
// probes put such a string where a test says: OFF bytes into a page, so a
// string that starts near a page's end is read in more than one piece.
func init() {
	// chmod_len:LEN,OFF,PATH: chmod 0640 of PATH, named by a path of
	// exactly LEN bytes (PATH's directory, slashes, its name).
	probeOps["chmod_len"] = func(a string) string {
		n, off, path, err := lenOffPath(a)
		if err != nil {
			return "bad-arg"
		}
		dir, base := filepath.Split(path)
		pad := n - len(dir) - len(base)
		if pad < 0 {
			return "bad-arg"
		}
		return withPlaced(dir+strings.Repeat("/", pad)+base, off, func(p uintptr) error {
			return errOf(unix.Syscall6(unix.SYS_FCHMODAT, cwdFD, p, 0o640, 0, 0, 0))
		})
	}
	// xattr_name_len:LEN,OFF,PATH: setxattr on PATH of an attribute whose
	// name ("user." and n's) is LEN bytes long (0: empty).
	probeOps["xattr_name_len"] = func(a string) string {
		n, off, path, err := lenOffPath(a)
		if err != nil || (n != 0 && n < len("user.")) {
			return "bad-arg"
		}
		name := "" // 0: an empty name
		if n > 0 {
			name = "user." + strings.Repeat("n", n-len("user."))
		}
		value := []byte("v")
		return withPlaced(name, off, func(p uintptr) error {
			return errOf(unix.Syscall6(unix.SYS_SETXATTR, uintptr(unsafe.Pointer(cstr(path))), p,
				uintptr(unsafe.Pointer(&value[0])), 1, 0, 0))
		})
	}
	// xattr_value_len:LEN,0,PATH: setxattr on PATH of a value of LEN bytes.
	probeOps["xattr_value_len"] = func(a string) string {
		n, _, path, err := lenOffPath(a)
		if err != nil {
			return "bad-arg"
		}
		value := make([]byte, n+1)
		return result(errOf(unix.Syscall6(unix.SYS_SETXATTR, uintptr(unsafe.Pointer(cstr(path))),
			uintptr(unsafe.Pointer(cstr("user.odek-probe"))), uintptr(unsafe.Pointer(&value[0])), uintptr(n), 0, 0)))
	}
}

func lenOffPath(a string) (n, off int, path string, err error) {
	parts := strings.SplitN(a, ",", 3)
	if len(parts) != 3 {
		return 0, 0, "", strconv.ErrSyntax
	}
	if n, err = strconv.Atoi(parts[0]); err != nil {
		return
	}
	off, err = strconv.Atoi(parts[1])
	return n, off, parts[2], err
}

// withPlaced calls f with the address of s, NUL-terminated, OFF bytes into
// the first of three fresh pages.
func withPlaced(s string, off int, f func(uintptr) error) string {
	mem, err := unix.Mmap(-1, 0, 3*4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return "mmap-" + result(err)
	}
	defer unix.Munmap(mem)
	if off+len(s)+1 > len(mem) {
		return "bad-arg"
	}
	copy(mem[off:], s)
	mem[off+len(s)] = 0
	return result(f(uintptr(unsafe.Pointer(&mem[off]))))
}

// sameAsKernel runs ops unconfined, then reset, then ops under p: each
// confined answer must be the kernel's own.
func sameAsKernel(t *testing.T, p Policy, ops []string, reset func()) {
	t.Helper()
	control := probeControl(t, ops...)
	reset()
	_, got := probeRun(t, p, ops...)
	for _, op := range ops {
		short := op
		if len(short) > 60 {
			short = short[:60] + "…"
		}
		if control[op] == "" || control[op] == "bad-arg" || strings.HasPrefix(control[op], "mmap-") {
			t.Fatalf("%s: the control probe answered %q", short, control[op])
		}
		if got[op] != control[op] {
			t.Errorf("%s: confined %q, the kernel's own answer %q", short, got[op], control[op])
		}
	}
}

// TestMetadataPathLengthAsTheKernel: a path of the kernel's greatest
// length (4095 bytes) is chmodded in the workspace as it is unconfined,
// and one a byte longer is refused as the kernel refuses it
// (ENAMETOOLONG), wherever the path lies in the caller's memory: at a
// page's start, or starting near a page's end so it is read in pieces.
func TestMetadataPathLengthAsTheKernel(t *testing.T) {
	t.Parallel()
	p, f := metaFile(t)
	var ops []string
	for _, off := range []int{0, 4096 - 100} {
		for _, n := range []int{4095, 4096} {
			ops = append(ops, "chmod_len:"+strconv.Itoa(n)+","+strconv.Itoa(off)+","+f)
		}
	}
	sameAsKernel(t, p, ops, func() {
		if err := os.Chmod(f, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("after the confined chmods: %v %v, want 0640", fi.Mode(), err)
	}
}

// TestXattrLimitsAsTheKernel: an attribute's name of 255 bytes is set
// as the kernel sets it, one of 256 refused as the kernel refuses it
// (ERANGE), and so is an empty one; a value of exactly 64 KiB gets the
// kernel's own answer (its limit, or the filesystem's), one byte more is
// E2BIG.
func TestXattrLimitsAsTheKernel(t *testing.T) {
	t.Parallel()
	p, f := metaFile(t)
	if err := unix.Setxattr(f, "user.odek-probe", []byte("v"), 0); err != nil {
		t.Skipf("no user attributes here: %v", err)
	}
	var ops []string
	for _, off := range []int{0, 4096 - 100} {
		for _, n := range []int{0, 254, 255, 256, 300} {
			ops = append(ops, "xattr_name_len:"+strconv.Itoa(n)+","+strconv.Itoa(off)+","+f)
		}
	}
	for _, n := range []int{65536, 65537} {
		ops = append(ops, "xattr_value_len:"+strconv.Itoa(n)+",0,"+f)
	}
	sameAsKernel(t, p, ops, func() {
		names, err := listxattr(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := unix.Removexattr(f, n); err != nil {
				t.Fatal(err)
			}
		}
	})
	names, err := listxattr(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{254, 255} {
		want := "user." + strings.Repeat("n", n-len("user."))
		if !slices.Contains(names, want) {
			t.Errorf("no attribute of a %d-byte name after the confined setxattr; have %d names", n, len(names))
		}
	}
}

func listxattr(path string) ([]string, error) {
	buf := make([]byte, 64<<10)
	n, err := unix.Listxattr(path, buf)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00"), nil
}

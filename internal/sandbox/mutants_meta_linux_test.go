//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	// fchmodat_rel:DIR|NAME: chmod 0640 of NAME relative to DIR's descriptor.
	probeOps["fchmodat_rel"] = func(a string) string {
		dir, name, _ := strings.Cut(a, "|")
		fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "open-" + result(err)
		}
		defer unix.Close(fd)
		return result(errOf(unix.Syscall6(unix.SYS_FCHMODAT, uintptr(fd), uintptr(unsafe.Pointer(cstr(name))), 0o640, 0, 0, 0)))
	}
	// fchmodat_cwd:DIR|NAME: chmod 0640 of NAME relative to the working
	// directory, DIR for the call.
	probeOps["fchmodat_cwd"] = func(a string) string {
		dir, name, _ := strings.Cut(a, "|")
		old, err := os.Getwd()
		if err != nil {
			return result(err)
		}
		if err := unix.Chdir(dir); err != nil {
			return "chdir-" + result(err)
		}
		defer unix.Chdir(old)
		return result(errOf(unix.Syscall6(unix.SYS_FCHMODAT, cwdFD, uintptr(unsafe.Pointer(cstr(name))), 0o640, 0, 0, 0)))
	}
	// fchownat_empty:PATH: chown (to the caller's own ids) of the file
	// PATH's descriptor holds, named by an empty path and AT_EMPTY_PATH;
	// fchownat_empty_noflag the same without the flag.
	emptyChown := func(flags uintptr) probeOp {
		return func(p string) string {
			return result(withFD(p, func(fd int) error {
				return errOf(unix.Syscall6(unix.SYS_FCHOWNAT, uintptr(fd), uintptr(unsafe.Pointer(cstr(""))),
					uintptr(os.Getuid()), uintptr(os.Getgid()), flags, 0))
			}))
		}
	}
	// fchmodat_own:PREFIX|PATH: chmod 0640 of PATH, opened, named by
	// PREFIX/N, N its descriptor (/proc/self/fd, /dev/fd: as tar does).
	probeOps["fchmodat_own"] = func(a string) string {
		prefix, path, _ := strings.Cut(a, "|")
		return result(withFD(path, func(fd int) error {
			name := prefix + "/" + strconv.Itoa(fd)
			return errOf(unix.Syscall6(unix.SYS_FCHMODAT, cwdFD, uintptr(unsafe.Pointer(cstr(name))), 0o640, 0, 0, 0))
		}))
	}
	// utimensat_at:PATH sets PATH's times to 1e9 s (atime) and 1.5e9 s
	// (mtime); utimensat_bad:PATH asks for a nanosecond count out of
	// range, which the kernel refuses (EINVAL).
	times := func(ts [2]unix.Timespec) probeOp {
		return func(p string) string {
			return result(errOf(unix.Syscall6(unix.SYS_UTIMENSAT, cwdFD, uintptr(unsafe.Pointer(cstr(p))),
				uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)))
		}
	}
	probeOps["utimensat_at"] = times([2]unix.Timespec{{Sec: 1e9}, {Sec: 15e8}})
	probeOps["utimensat_bad"] = times([2]unix.Timespec{{Sec: 1e9, Nsec: 2e9}, {Sec: 1e9}})
	probeOps["fchownat_empty"] = emptyChown(unix.AT_EMPTY_PATH)
	probeOps["fchownat_empty_noflag"] = emptyChown(0)
}

// The supervisor resolves a call's file as the kernel would for the
// caller: a relative name against the directory descriptor given, or
// against the caller's working directory; an empty name with
// AT_EMPTY_PATH as the descriptor's own file, and without it as no file
// (ENOENT); removexattr through a symlink on the link's target. Each
// call's effect is checked on the file, and every answer against the
// same call unconfined.
func TestMetadataNamesAsTheCallerResolvesThem(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	sub := filepath.Join(ws, "sub")
	for _, f := range []string{"sub/rel", "sub/cwd", "empty", "inside"} {
		mkfile(t, filepath.Join(ws, f), "x")
	}
	link := filepath.Join(ws, "to-inside")
	if err := os.Symlink(filepath.Join(ws, "inside"), link); err != nil {
		t.Fatal(err)
	}
	reset := func() {
		for _, f := range []string{"sub/rel", "sub/cwd", "empty", "inside"} {
			if err := os.Chmod(filepath.Join(ws, f), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := unix.Setxattr(filepath.Join(ws, "inside"), "user.odek-probe", []byte("v"), 0); err != nil {
			t.Skipf("no user attributes here: %v", err)
		}
	}
	want := map[string]string{
		"fchmodat_rel:" + sub + "|rel": "ok", "fchmodat_cwd:" + sub + "|cwd": "ok",
		"fchownat_empty:" + filepath.Join(ws, "empty"): "ok", "fchownat_empty_noflag:" + filepath.Join(ws, "empty"): "ENOENT",
		"removexattr:" + link: "ok",
	}
	var ops []string
	for op := range want {
		ops = append(ops, op)
	}
	reset()
	for op, res := range probeControl(t, ops...) {
		if res != want[op] {
			t.Skipf("unconfined, %s: %s, want %s", op, res, want[op])
		}
	}
	reset()
	_, got := probeRun(t, p, ops...)
	for op, res := range want {
		if got[op] != res {
			t.Errorf("confined, %s: %q, want %s", op, got[op], res)
		}
	}
	for _, f := range []string{"sub/rel", "sub/cwd"} {
		if fi, err := os.Stat(filepath.Join(ws, f)); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s after the confined chmod: %v %v, want 0640", f, fi.Mode(), err)
		}
	}
	if _, err := unix.Getxattr(filepath.Join(ws, "inside"), "user.odek-probe", nil); err != unix.ENODATA {
		t.Errorf("the link's target still has its attribute after removexattr through the link: %v", err)
	}
}

// A process's names for its own descriptors (/proc/self/fd/N,
// /proc/thread-self/fd/N, /dev/fd/N: tar chmods what it extracted that
// way) name the caller's descriptors, not the supervisor's: the chmod
// lands on the caller's file. /proc/self itself, and a name that only
// starts like one, are not rewritten into something else, and the
// supervisor goes on answering.
func TestMetadataThroughTheCallersOwnFDNames(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	prefixes := []string{"/proc/self/fd", "/proc/thread-self/fd", "/dev/fd"}
	var ops []string
	for i, prefix := range prefixes {
		f := filepath.Join(ws, "own"+strconv.Itoa(i))
		mkfile(t, f, "x")
		ops = append(ops, "fchmodat_own:"+prefix+"|"+f)
	}
	last := filepath.Join(ws, "last")
	mkfile(t, last, "x")
	ops = append(ops, "fchmodat:/proc/self", "fchmodat:/proc/selfish", "fchmodat:"+last)
	_, got := probeRun(t, p, ops...)
	for i, prefix := range prefixes {
		f := filepath.Join(ws, "own"+strconv.Itoa(i))
		if res := got[ops[i]]; res != "ok" {
			t.Errorf("chmod of %s through %s/N: %q, want ok", f, prefix, res)
		}
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s after its chmod through %s/N: %v (%v), want 0640", f, prefix, fi.Mode(), err)
		}
	}
	for _, op := range []string{"fchmodat:/proc/self", "fchmodat:/proc/selfish"} {
		if res := got[op]; res == "ok" || res == "" {
			t.Errorf("%s: %q, want a refusal", op, res)
		}
	}
	if res := got["fchmodat:"+last]; res != "ok" {
		t.Errorf("a chmod after those: %q, want ok (the supervisor still answering)", res)
	}
}

// The supervisor's utimensat does what was asked (the times given, not
// now) and answers what the kernel answered: a nanosecond count out of
// range is EINVAL, as unconfined, and leaves the times alone.
func TestMetadataTimesAsAsked(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	set, bad := filepath.Join(ws, "set"), filepath.Join(ws, "bad")
	mkfile(t, set, "x")
	mkfile(t, bad, "x")
	ops := []string{"utimensat_at:" + set, "utimensat_bad:" + bad}
	if ctl := probeControl(t, ops...); ctl[ops[0]] != "ok" || ctl[ops[1]] != "EINVAL" {
		t.Skipf("unconfined: %v", ctl)
	}
	before, err := os.Stat(bad)
	if err != nil {
		t.Fatal(err)
	}
	mkfile(t, set, "x") // the control's times undone: a new write is now
	_, got := probeRun(t, p, ops...)
	if got[ops[0]] != "ok" || got[ops[1]] != "EINVAL" {
		t.Errorf("confined: %v, want ok and EINVAL", got)
	}
	if fi, err := os.Stat(set); err != nil || fi.ModTime().Unix() != 15e8 {
		t.Errorf("%s's mtime after the confined utimensat: %v (%v), want 1.5e9 s", set, fi.ModTime(), err)
	}
	if fi, err := os.Stat(bad); err != nil || !fi.ModTime().Equal(before.ModTime()) {
		t.Errorf("%s's mtime after a refused utimensat: %v (%v), was %v", bad, fi.ModTime(), err, before.ModTime())
	}
}

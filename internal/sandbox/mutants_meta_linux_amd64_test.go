package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	// utimes_at:PATH sets PATH's times by amd64's legacy utimes, in
	// microseconds: 1e9 s + 250000 µs and 1.5e9 s + 500000 µs.
	probeOps["utimes_at"] = func(p string) string {
		tv := [2]unix.Timeval{{Sec: 1e9, Usec: 250000}, {Sec: 15e8, Usec: 500000}}
		return result(errOf(unix.Syscall(unix.SYS_UTIMES, uintptr(unsafe.Pointer(cstr(p))), uintptr(unsafe.Pointer(&tv[0])), 0)))
	}
}

// utimes' microseconds reach the file as the same time in nanoseconds.
func TestMetadataLegacyUtimesMicroseconds(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	f := filepath.Join(ws, "f")
	mkfile(t, f, "x")
	op := "utimes_at:" + f
	if ctl := probeControl(t, op)[op]; ctl != "ok" {
		t.Skipf("unconfined: %s", ctl)
	}
	mkfile(t, f, "x") // the control's times undone
	if _, got := probeRun(t, p, op); got[op] != "ok" {
		t.Fatalf("confined: %q", got[op])
	}
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.ModTime().UnixNano(); got != 15e8*1e9+500000*1e3 {
		t.Errorf("%s's mtime after the confined utimes: %d ns, want 1.5e9 s + 500 ms", f, got)
	}
	if a := fi.Sys().(*syscall.Stat_t).Atim; a.Sec != 1e9 || a.Nsec != 250000*1e3 {
		t.Errorf("%s's atime after the confined utimes: %d s %d ns, want 1e9 s + 250 ms", f, a.Sec, a.Nsec)
	}
}

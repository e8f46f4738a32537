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
	// chmod_at_page:OFF|PATH chmods PATH (0640) naming it by a copy whose
	// terminating NUL is the byte at OFF from the start of the second of
	// three pages, the third unmapped (PROT_NONE): the path ends right
	// before memory that cannot be read, or spans the first two pages.
	// PATH may start with any number of slashes.
	probeOps["chmod_at_page"] = func(a string) string {
		off, path, _ := strings.Cut(a, "|")
		end, err := strconv.Atoi(off)
		if err != nil {
			return result(err)
		}
		const page = 4096
		mem, err := unix.Mmap(-1, 0, 3*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return result(err)
		}
		defer unix.Munmap(mem)
		if err := unix.Mprotect(mem[2*page:], unix.PROT_NONE); err != nil {
			return result(err)
		}
		start := page + end - len(path)
		if start < 0 {
			return "path-too-long"
		}
		copy(mem[start:], path)
		mem[page+end] = 0
		return result(errOf(unix.Syscall6(unix.SYS_FCHMODAT, cwdFD, uintptr(unsafe.Pointer(&mem[start])), 0o640, 0, 0, 0)))
	}
}

// The supervisor reads a call's path from the caller's memory page by
// page: a path that ends on the last byte before an unreadable page is
// read whole, not refused for the page after it, and a path that spans
// two pages (a long one: a run of slashes before it) is read across them.
func TestMetadataPathAtPageEdges(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws, _ := metaPolicy(t, true)
	var ops []string
	files := map[string]string{}
	for i, c := range []struct{ end, slashes int }{
		{4095, 0}, {4095, 3000}, {2000, 3000}, {100, 3000}, {0, 1000}, {1, 2000}, {3000, 3900},
	} {
		f := filepath.Join(ws, "f"+strconv.Itoa(i))
		mkfile(t, f, "x")
		op := "chmod_at_page:" + strconv.Itoa(c.end) + "|" + strings.Repeat("/", c.slashes) + f
		ops = append(ops, op)
		files[op] = f
	}
	if ctl := probeControl(t, ops...); len(ctl) != len(ops) {
		t.Fatalf("the control: %v", ctl)
	} else {
		for op, res := range ctl {
			if res != "ok" {
				t.Skipf("unconfined, %s: %s", op[:40], res)
			}
		}
	}
	for _, f := range files {
		if err := os.Chmod(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A path longer than PATH_MAX is refused as the kernel refuses it, the
	// read of it bounded (a read that went on at the limit never ended).
	long := "chmod_at_page:4095|" + strings.Repeat("/", 5000) + filepath.Join(ws, "f0")
	if ctl := probeControl(t, long)[long]; ctl != "ENAMETOOLONG" {
		t.Fatalf("unconfined, a path of 5000 bytes: %s", ctl)
	}
	_, got := probeRun(t, p, append(ops, long)...)
	if got[long] != "ENAMETOOLONG" {
		t.Errorf("confined, a path of 5000 bytes: %q, want ENAMETOOLONG", got[long])
	}
	for _, op := range ops {
		if got[op] != "ok" {
			t.Errorf("confined, a path ending at byte %s of the page: %q, want ok", strings.SplitN(op, ":", 2)[1][:4], got[op])
		}
		if fi, err := os.Stat(files[op]); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s after its chmod: %v (%v)", files[op], fi.Mode(), err)
		}
	}
}

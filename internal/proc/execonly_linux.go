package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// execOnly is ExecOnlySelf's result, made once.
var execOnly struct {
	mu   sync.Mutex
	made bool
	path string
	err  error
}

// ExecOnlySelf is a path that starts this process's own executable again as
// a process that is non-dumpable from its first instruction: a sealed copy
// of the executable in memory (a memfd) that its user may run but not read.
// The kernel makes a process exec'd from a file its user cannot read
// non-dumpable, as it does a setuid one, so no other process of the user
// can read its /proc files or memory, take its descriptors or trace it,
// even in the milliseconds before its own code runs.
//
// The copy is made on the first call and kept, as one descriptor, for the
// life of the process (it costs the executable's size in memory once).
// When the running executable is already unreadable, that is SelfExe and
// no copy is made. err says why the path returned is SelfExe without that
// protection: root (it reads every file), or a kernel or policy that
// refuses the copy. The path is usable either way.
func ExecOnlySelf() (string, error) {
	execOnly.mu.Lock()
	defer execOnly.mu.Unlock()
	if !execOnly.made {
		execOnly.path, execOnly.err = makeExecOnly()
		execOnly.made = true
	}
	return execOnly.path, execOnly.err
}

// isExecOnlySelf reports whether path is ExecOnlySelf's copy.
func isExecOnlySelf(path string) bool {
	execOnly.mu.Lock()
	defer execOnly.mu.Unlock()
	return execOnly.made && path == execOnly.path
}

// makeExecOnly makes ExecOnlySelf's copy, or says why not.
func makeExecOnly() (string, error) {
	self, _ := SelfExe()
	if os.Geteuid() == 0 {
		return self, fmt.Errorf("%w: root reads every file", ErrNotExecOnly)
	}
	src, err := os.Open(self)
	if errors.Is(err, os.ErrPermission) {
		return self, nil // already unreadable: its children start non-dumpable
	}
	if err != nil {
		return self, fmt.Errorf("%w: %v", ErrNotExecOnly, err)
	}
	defer src.Close()
	path, err := sealedCopy(src)
	if err != nil {
		return self, fmt.Errorf("%w: %v", ErrNotExecOnly, err)
	}
	return path, nil
}

// sealedCopy copies src into a new memfd, seals it against every change,
// makes it execute-only and returns a /proc/self/fd path to an O_PATH
// descriptor of it (the writable one is closed, so that exec does not find
// the file open for writing).
func sealedCopy(src *os.File) (string, error) {
	fd, err := unix.MemfdCreate("odek", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) { // before Linux 6.3, which added MFD_EXEC
		fd, err = unix.MemfdCreate("odek", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return "", fmt.Errorf("memfd_create: %w", err)
	}
	mem := os.NewFile(uintptr(fd), "odek-exec-only")
	defer mem.Close()
	if _, err := io.Copy(mem, src); err != nil {
		return "", fmt.Errorf("copy the executable: %w", err)
	}
	seals := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(mem.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		return "", fmt.Errorf("seal: %w", err)
	}
	if err := unix.Fchmod(int(mem.Fd()), 0o111); err != nil {
		return "", fmt.Errorf("chmod: %w", err)
	}
	ro, err := unix.Open("/proc/self/fd/"+strconv.Itoa(int(mem.Fd())), unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("reopen: %w", err)
	}
	return "/proc/self/fd/" + strconv.Itoa(highFD(ro)), nil
}

// highFD moves fd to a number of at least minExecFD, where the descriptors a
// child is started with (0 to 2, and ExtraFiles from 3 on), which take
// their numbers before the exec that reads the path, cannot land on it. It
// keeps fd where that fails (a descriptor limit below minExecFD).
func highFD(fd int) int {
	high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, minExecFD)
	if err != nil {
		return fd
	}
	_ = unix.Close(fd)
	return high
}

// minExecFD is the least number highFD gives the copy's descriptor.
const minExecFD = 64

//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// noCloseRangeArg makes the test binary a wrapper that execs the rest of
// its argv with close_range(2) answering ENOSYS, as a kernel before 5.11
// does: a seccomp filter on the wrapper's thread, kept across the exec.
const noCloseRangeArg = "__sandbox-test-no-close-range"

func init() {
	if len(os.Args) < 3 || os.Args[1] != noCloseRangeArg {
		return
	}
	runtime.LockOSThread() // the filter is this thread's; the exec keeps it
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // the call's number
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_CLOSE_RANGE, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		os.Stderr.WriteString("no_new_privs: " + err.Error() + "\n")
		os.Exit(126)
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		os.Stderr.WriteString("seccomp: " + err.Error() + "\n")
		os.Exit(126)
	}
	err := syscall.Exec(os.Args[2], os.Args[2:], os.Environ())
	os.Stderr.WriteString("exec: " + err.Error() + "\n")
	os.Exit(126)
}

// On a kernel without close_range (before Linux 5.11) the launcher seals
// what it inherited all the same, descriptor by descriptor from
// /proc/self/fd: a descriptor odek's parent left open without
// close-on-exec does not reach the command, whatever the mode (mode off
// starts the target directly, which passes it every descriptor not so
// marked).
func TestSealWithoutCloseRange(t *testing.T) {
	t.Parallel()
	leak, err := os.OpenFile(filepath.Join(t.TempDir(), "leak"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer leak.Close()
	policies := []Policy{{Mode: ModeOff}}
	if Probe().LandlockABI >= abiFS {
		p := Policy{Mode: ModeWorkspaceWrite, Workspace: t.TempDir(), Landlock: true}
		mustPrepare(t, &p)
		policies = append(policies, p)
	}
	for _, p := range policies {
		cmd := launcherCmd(t, p, nil, []*os.File{leak, leak}, "/bin/sh", "-c", "ls /proc/self/fd | tr '\\n' ' '; echo")
		cmd.Args = append([]string{cmd.Path, noCloseRangeArg}, cmd.Args...)
		out, err := cmd.CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != "0 1 2 3" {
			t.Errorf("%s, close_range refused: the command holds descriptors %q (%v), want 0 1 2 3 (ls's own)", p.Mode, got, err)
		}
	}
}

//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFilterRefusesCallsOnOtherProcesses: a confined command may change
// its own limits, priority, affinity and I/O priority (pid or who 0) but
// names no process by pid, not even its own, and no user: the filter
// cannot tell a pid from another process's. Real syscalls, by the
// util-linux tools; without the filter every refused one works on the
// command's own shell for any user.
func TestFilterRefusesCallsOnOtherProcesses(t *testing.T) {
	if Probe().LandlockABI < abiFS || filterArch == 0 {
		t.Skip("no Landlock or no filter")
	}
	for _, tool := range []string{"prlimit", "renice", "taskset", "ionice"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: t.TempDir(), Landlock: true}
	mustPrepare(t, &p)
	script := `
prlimit --pid $$ --nofile=512:512 && echo REACHED-prlimit
renice -n 1 -p $$ >/dev/null && echo REACHED-renice
taskset -p 1 $$ >/dev/null && echo REACHED-taskset
ionice -c 3 -p $$ && echo REACHED-ionice
prlimit --nofile=256:256 sh -c 'ulimit -n' && echo SELF-prlimit
nice -n 2 sh -c 'echo nice' && echo SELF-nice
taskset 1 true && echo SELF-taskset
ionice -c 3 true && echo SELF-ionice
`
	_, _, out := launch(t, p, "/bin/sh", "-c", script)
	if strings.Contains(out, "REACHED-") {
		t.Errorf("a call named a process by pid:\n%s", out)
	}
	for _, self := range []string{"SELF-prlimit", "SELF-nice", "SELF-taskset", "SELF-ionice"} {
		if !strings.Contains(out, self) {
			t.Errorf("%s: a call on the command itself failed:\n%s", self, out)
		}
	}
}

// TestFilterRefusesOtherWays: the calls with no use in a build that open
// a way around the rest: kcmp, process_vm_readv, pidfd_getfd,
// process_madvise and the keyring fail with EPERM; openat2, io_uring,
// setxattrat with ENOSYS (callers fall back to what the filter checks).
func TestFilterRefusesOtherWays(t *testing.T) {
	if Probe().LandlockABI < abiFS || filterArch == 0 {
		t.Skip("no Landlock or no filter")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: t.TempDir(), Landlock: true, Network: true}
	mustPrepare(t, &p)
	const py = `
import ctypes, errno, os, platform
libc = ctypes.CDLL(None, use_errno=True)
amd = platform.machine() == "x86_64"
calls = {"kcmp": (312 if amd else 272, os.getpid(), os.getpid(), 0, 0, 0),
         "process_vm_readv": (310 if amd else 270, os.getpid(), 0, 0, 0, 0, 0),
         "pidfd_getfd": (438, 0, 0, 0), "process_madvise": (440, 0, 0, 0, 0, 0),
         "keyctl": (250 if amd else 219, 0, 0, 0, 0, 0),
         "openat2": (437, -100, 0, 0, 0), "io_uring_setup": (425, 1, 0), "setxattrat": (463, -100, 0, 0, 0, 0, 0)}
for name, c in calls.items():
    r = libc.syscall(*[ctypes.c_long(x) for x in c])
    print(name, errno.errorcode.get(ctypes.get_errno(), "ok") if r < 0 else "ok")
`
	_, _, out := launch(t, p, "/usr/bin/env", "python3", "-c", py)
	for _, want := range []string{"kcmp EPERM", "process_vm_readv EPERM", "pidfd_getfd EPERM", "process_madvise EPERM",
		"keyctl EPERM", "openat2 ENOSYS", "io_uring_setup ENOSYS", "setxattrat ENOSYS"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
}

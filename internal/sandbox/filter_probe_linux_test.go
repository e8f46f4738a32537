//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// needFilter skips where the kernel has no Landlock or this architecture
// no filter.
func needFilter(t *testing.T) {
	t.Helper()
	if Probe().LandlockABI < abiFS || filterArch == 0 || !Probe().Seccomp {
		t.Skip("no Landlock or no seccomp filter")
	}
}

// confinedPolicy is a prepared workspace-write policy over a fresh
// workspace, with the network as given.
func confinedPolicy(t *testing.T, network bool) (Policy, string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Landlock: true, Network: network}
	mustPrepare(t, &p)
	return p, ws
}

// TestFilterRefusesEachCall: every call the filter refuses, made for real
// by a confined process, fails with the errno the filter gives it — the
// session keyring (keyctl, add_key, request_key), the ways into another
// process (kcmp, process_vm_readv/writev, process_madvise, pidfd_getfd),
// the calls whose arguments it cannot read (openat2, io_uring_setup,
// setxattrat, removexattrat), and each call that may name only the caller
// named by its own pid (the filter cannot tell it from another's) or a
// user — while the same calls on the caller itself (pid or who 0) work.
// Each row is run unconfined too: a row the kernel itself refuses alike
// says nothing of the filter and is skipped with a note.
func TestFilterRefusesEachCall(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws := confinedPolicy(t, true)
	file := filepath.Join(ws, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []probeCase{
		{"keyctl", "EPERM"}, {"add_key", "EPERM"}, {"request_key", "EPERM"},
		{"kcmp", "EPERM"}, {"process_vm_readv", "EPERM"}, {"process_vm_writev", "EPERM"},
		{"process_madvise", "EPERM"}, {"pidfd_getfd", "EPERM"},
		{"openat2", "ENOSYS"}, {"io_uring_setup", "ENOSYS"},
		{"setxattrat:" + file, "ENOSYS"}, {"removexattrat:" + file, "ENOSYS"},
		{"prlimit_pid", "EPERM"}, {"prlimit_self", "ok"},
		{"sched_setaffinity_pid", "EPERM"}, {"sched_setaffinity_self", "ok"},
		{"sched_setscheduler_pid", "EPERM"}, {"sched_setparam_pid", "EPERM"}, {"sched_setattr_pid", "EPERM"},
		{"migrate_pages_pid", "EPERM"}, {"move_pages_pid", "EPERM"},
		{"setpriority_pid", "EPERM"}, {"setpriority_user", "EPERM"},
		{"setpriority_self", "ok"}, {"setpriority_pgrp", "ok"},
		{"ioprio_set_pid", "EPERM"}, {"ioprio_set_user", "EPERM"},
		{"ioprio_set_self", "ok"}, {"ioprio_set_pgrp", "ok"}, {"ioprio_set_own_user", "EPERM"},
		// With the network on, every socket is allowed.
		{"socket_inet", "ok"}, {"socket_unix", "ok"},
	}
	if _, ok := probeArchOps["x32_keyctl"]; ok {
		// An x32 call fails whatever it is (its keyctl here).
		cases = append(cases, probeCase{"x32_keyctl", "ENOSYS"})
	}
	checkProbe(t, p, cases)
}

// TestNetworkOffRefusesSockets: with the network off, socket() fails with
// EACCES for every family but AF_UNIX (and for AF_UNIX too where Landlock
// cannot restrict connecting to pathname sockets); socketpair works.
func TestNetworkOffRefusesSockets(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, _ := confinedPolicy(t, false)
	unixWant := "EACCES"
	if landlockABI() >= abiResolveUnix {
		unixWant = "ok"
	}
	checkProbe(t, p, []probeCase{
		{"socket_inet", "EACCES"}, {"socket_inet6", "EACCES"}, {"socket_netlink", "EACCES"},
		{"socket_unix", unixWant}, {"socketpair_unix", "ok"},
	})
}

// TestNoCapabilityLeft: a confined process holds no capability in any
// set — effective, permitted, inheritable, ambient, bounding — has
// no_new_privs and the filter (seccomp mode 2), and so cannot do what a
// capability allows (a UTS namespace, a device node, giving a file away)
// even where it runs as root. As another user the bounding set cannot be
// emptied (CAP_SETPCAP) and no_new_privs keeps an exec from gaining one:
// the checks that need root skip there.
func TestNoCapabilityLeft(t *testing.T) {
	t.Parallel()
	needFilter(t)
	p, ws := confinedPolicy(t, true)
	mine := filepath.Join(ws, "mine")
	if err := os.WriteFile(mine, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, got := probeRun(t, p, "caps", "capbnd", "ambient", "nnp", "seccomp")
	if want := "eff=0000000000000000,prm=0000000000000000,inh=0000000000000000"; got["caps"] != want {
		t.Errorf("capability sets %s, want %s", got["caps"], want)
	}
	if got["ambient"] != "0" || got["nnp"] != "1" || got["seccomp"] != "2" {
		t.Errorf("ambient %s, no_new_privs %s, seccomp %s; want 0, 1, 2", got["ambient"], got["nnp"], got["seccomp"])
	}
	if os.Getuid() != 0 {
		t.Skip("not root: the bounding set and the capabilities' uses are root's to test")
	}
	if got["capbnd"] != "0" {
		t.Errorf("bounding set %s, want empty (the kernel's last capability is %d)", got["capbnd"], lastCapRead(t))
	}
	dev := filepath.Join(ws, "dev")
	checkProbeWith(t, p, []probeCase{
		{"unshare_uts", "EPERM"}, {"mknod_char:" + dev, "EPERM"},
		// The supervisor performs a chown in the workspace with no
		// capability either: giving the file away needs CAP_CHOWN.
		{"fchownat_other:" + mine, "EPERM"}, {"fchownat:" + mine, "ok"},
	}, func() {
		_ = os.Remove(dev)
		if err := os.Chown(mine, os.Getuid(), os.Getgid()); err != nil {
			t.Fatal(err)
		}
	})
}

// lastCapRead is the kernel's highest capability, read here on its own.
func lastCapRead(t *testing.T) int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFilterOnForeignCalls: the filter's answer to calls this kernel may
// not let a test make — an x32 call (amd64, nr | 0x40000000) fails with
// ENOSYS and a call of a foreign architecture (i386 on amd64, arm on
// arm64) kills the process — run through a classic BPF interpreter, as
// the kernel runs it. Where the kernel can, TestForeignArchitectureKills
// makes the i386 call for real.
func TestFilterOnForeignCalls(t *testing.T) {
	t.Parallel()
	prog := filter(filterSpec{supervised: true, networkOff: true})
	foreign := uint32(unix.AUDIT_ARCH_I386)
	if filterArch == unix.AUDIT_ARCH_AARCH64 {
		foreign = unix.AUDIT_ARCH_ARM
	}
	for _, nr := range []uint32{0, 1, unix.SYS_GETPID, unix.SYS_KEYCTL} {
		if got := runBPF(t, prog, foreign, nr, [6]uint64{}); got != unix.SECCOMP_RET_KILL_PROCESS {
			t.Errorf("arch %#x call %d: action %#x, want kill", foreign, nr, got)
		}
		if x32Bit == 0 {
			continue
		}
		if got := runBPF(t, prog, filterArch, x32Bit|nr, [6]uint64{}); got != unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS) {
			t.Errorf("x32 call %d: action %#x, want ENOSYS", nr, got)
		}
	}
	if got := runBPF(t, prog, filterArch, unix.SYS_GETPID, [6]uint64{}); got != unix.SECCOMP_RET_ALLOW {
		t.Errorf("getpid: action %#x, want allow", got)
	}
}

// TestFilterOnOwnUserPriority: setpriority of the caller's own user
// (PRIO_USER, who 0) renices every process of that user, odek among them;
// the filter refuses it as it refuses another user's. Made for real it
// would renice the machine's processes of the test's user in the control
// run too, so the filter program answers it through the interpreter
// (ioprio_set's counterpart is made for real: TestFilterRefusesEachCall).
func TestFilterOnOwnUserPriority(t *testing.T) {
	t.Parallel()
	prog := filter(filterSpec{supervised: true, networkOff: true})
	for _, c := range []struct {
		nr       uint32
		which    uint64
		want     uint32
		describe string
	}{
		{unix.SYS_SETPRIORITY, unix.PRIO_USER, unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM), "setpriority(PRIO_USER, 0)"},
		{unix.SYS_IOPRIO_SET, 3, unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM), "ioprio_set(IOPRIO_WHO_USER, 0)"},
		{unix.SYS_SETPRIORITY, unix.PRIO_PROCESS, unix.SECCOMP_RET_ALLOW, "setpriority(PRIO_PROCESS, 0)"},
	} {
		if got := runBPF(t, prog, filterArch, c.nr, [6]uint64{c.which, 0, 0}); got != c.want {
			t.Errorf("%s: action %#x, want %#x", c.describe, got, c.want)
		}
	}
}

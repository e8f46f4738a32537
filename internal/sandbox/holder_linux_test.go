//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The launcher's thread that holds the policy (holdPolicy) is the target's
// parent thread and lives in the target's Landlock domain, so signal
// scoping would let the target signal it — and a fatal signal to one
// thread ends the whole launcher. The filter refuses every way to name it.

// holderTID is the thread of process pid whose seccomp mode is a filter
// (2), or 0 when none has one; more than one is an error.
func holderTID(pid int) (int, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	found := 0
	for _, e := range entries {
		f, err := os.Open(filepath.Join(dir, e.Name(), "status"))
		if err != nil {
			continue // the thread ended
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if sc.Text() == "Seccomp:\t2" {
				if found != 0 {
					f.Close()
					return 0, fmt.Errorf("threads %d and %s both hold a filter", found, e.Name())
				}
				found, _ = strconv.Atoi(e.Name())
			}
		}
		f.Close()
	}
	return found, nil
}

// sigQueueInfo is a siginfo_t of code SI_QUEUE, as sigqueue(3) sends.
func sigQueueInfo() *[128]byte {
	var info [128]byte
	code := int32(-1) // SI_QUEUE
	*(*int32)(unsafe.Pointer(&info[8])) = code
	return &info
}

// probeHolderOps each name the launcher's holding thread (found from the
// probe's parent) one way: signal 0 where the call sends a signal, the
// owner of a descriptor where it sets one (SIGIO, or whatever F_SETSIG
// names, would go there).
var probeHolderOps = map[string]probeOp{
	"holder": func(route string) string {
		ppid := os.Getppid()
		tid, err := holderTID(ppid)
		if err != nil {
			return "error"
		}
		if tid == 0 {
			return "no-holder"
		}
		if tid == ppid {
			return "holder-is-main-thread"
		}
		return holderRoute(route, ppid, tid)
	},
}

// fOwnerEx is struct f_owner_ex; fOwnerTID its F_OWNER_TID.
type fOwnerEx struct {
	Type int32
	Pid  int32
}

const fOwnerTID = 0

func holderRoute(route string, ppid, tid int) string {
	switch route {
	case "kill":
		return result(unix.Kill(tid, 0))
	case "tkill":
		return result(errOf(unix.Syscall(unix.SYS_TKILL, uintptr(tid), 0, 0)))
	case "tgkill":
		return result(unix.Tgkill(ppid, tid, 0))
	case "rt_sigqueueinfo":
		return result(errOf(unix.Syscall(unix.SYS_RT_SIGQUEUEINFO, uintptr(tid), 0, uintptr(unsafe.Pointer(sigQueueInfo())))))
	case "rt_tgsigqueueinfo":
		return result(errOf(unix.Syscall6(unix.SYS_RT_TGSIGQUEUEINFO, uintptr(ppid), uintptr(tid), 0,
			uintptr(unsafe.Pointer(sigQueueInfo())), 0, 0)))
	case "pidfd_open":
		const pidfdThread = unix.O_EXCL // PIDFD_THREAD (Linux 6.9)
		return result(fdOf(unix.Syscall(unix.SYS_PIDFD_OPEN, uintptr(tid), pidfdThread, 0)))
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return result(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	id := int32(tid)
	switch route {
	case "f_setown":
		return result(errOf(unix.Syscall(unix.SYS_FCNTL, uintptr(fds[0]), unix.F_SETOWN, uintptr(tid))))
	case "f_setown_ex":
		owner := fOwnerEx{Type: fOwnerTID, Pid: id}
		return result(errOf(unix.Syscall(unix.SYS_FCNTL, uintptr(fds[0]), unix.F_SETOWN_EX, uintptr(unsafe.Pointer(&owner)))))
	case "fiosetown":
		return result(errOf(unix.Syscall(unix.SYS_IOCTL, uintptr(fds[0]), ioctlFIOSETOWN, uintptr(unsafe.Pointer(&id)))))
	case "siocspgrp":
		return result(errOf(unix.Syscall(unix.SYS_IOCTL, uintptr(fds[0]), ioctlSIOCSPGRP, uintptr(unsafe.Pointer(&id)))))
	case "f_setown_self": // the caller's own process: allowed
		return result(errOf(unix.Syscall(unix.SYS_FCNTL, uintptr(fds[0]), unix.F_SETOWN, uintptr(os.Getpid()))))
	case "f_getown_ex": // reading the owner: allowed
		var owner fOwnerEx
		return result(errOf(unix.Syscall(unix.SYS_FCNTL, uintptr(fds[0]), unix.F_GETOWN_EX, uintptr(unsafe.Pointer(&owner)))))
	case "kill_parent": // the launcher's own pid: Landlock's scoping refuses it
		return result(unix.Kill(ppid, 0))
	case "kill_self":
		return result(unix.Kill(os.Getpid(), 0))
	}
	return "unknown-route"
}

// TestCommandCannotNameItsLaunchersHolder: a confined command finds the
// launcher thread that holds its policy (exactly one, never the main
// thread) and tries every call that names a thread to signal or to own a
// descriptor: each fails with EPERM, the launcher survives and reports
// done, while the same calls on the command itself work. Without the
// filter's rules each of them succeeds (signal 0, an owner set): run under
// a filter built without launcherTID they all return ok.
func TestCommandCannotNameItsLaunchersHolder(t *testing.T) {
	needFilter(t)
	if Probe().LandlockABI < abiScoping {
		t.Skip("no Landlock signal scoping: the command can signal its launcher anyway")
	}
	p, _ := confinedPolicy(t, true)
	routes := []string{"kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open",
		"f_setown", "f_setown_ex", "fiosetown", "siocspgrp"}
	allowed := []string{"f_setown_self", "f_getown_ex", "kill_self"}
	var ops []string
	for _, r := range append(append(routes, allowed...), "kill_parent") {
		ops = append(ops, "holder:"+r)
	}
	code, status, out := launch(t, p, probeExe(t), append([]string{probeArg}, ops...)...)
	if code != 0 || status != StatusReady+"\n"+StatusDone+"\n" {
		t.Fatalf("exit %d, status %q; want 0, ready and done:\n%s", code, status, out)
	}
	got := probeResults(out)
	for _, r := range routes {
		if res := got["holder:"+r]; res != "EPERM" {
			t.Errorf("%s on the holding thread: %q, want EPERM", r, res)
		}
	}
	for _, r := range allowed {
		if res := got["holder:"+r]; res != "ok" {
			t.Errorf("%s: %q, want ok", r, res)
		}
	}
	if res := got["holder:kill_parent"]; res != "EPERM" {
		t.Errorf("kill on the launcher's pid: %q, want EPERM (scoping)", res)
	}
}

// TestOneThreadHoldsThePolicy: while the target runs, exactly one thread
// of the launcher holds a seccomp filter — not the main thread, whose pid
// is the launcher's — and it stays for the whole call: it is the target's
// parent thread, whose end would fire a parent-death signal the target
// set. The target here waits until the test has looked.
func TestOneThreadHoldsThePolicy(t *testing.T) {
	needFilter(t)
	p, ws := confinedPolicy(t, true)
	fifo := filepath.Join(ws, "go")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := launcherCmd(t, p, w, nil, "/bin/sh", "-c", `read line < "$0"`, fifo)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	stuck := stopAfter(cmd, launchLimit)
	defer func() {
		if stuck() {
			t.Errorf("the launcher did not exit within %v (killed)", launchLimit)
		}
	}()
	ready, _ := bufio.NewReader(r).ReadString('\n')
	if ready != StatusReady+"\n" {
		t.Fatalf("status %q, want ready", ready)
	}
	tid, err := holderTID(cmd.Process.Pid)
	release := func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			fmt.Fprintln(f, "go")
			f.Close()
		}
	}
	release()
	if werr := cmd.Wait(); werr != nil {
		t.Errorf("launcher: %v", werr)
	}
	switch {
	case err != nil:
		t.Fatal(err)
	case tid == 0:
		t.Fatal("no launcher thread holds the policy while the target runs")
	case tid == cmd.Process.Pid:
		t.Fatal("the launcher's main thread holds the policy")
	}
}

// TestGuardComparesTheRightArgument: the filter's launcher rules read the
// argument each call names a thread in, and nothing else: a call naming
// another thread, or the holder's id in another argument, is allowed, and
// a filter built without a holder refuses none of them.
func TestGuardComparesTheRightArgument(t *testing.T) {
	const tid, other = 4242, 4243
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	guarded := filter(filterSpec{launcherTID: tid})
	plain := filter(filterSpec{})
	cases := []struct {
		name string
		nr   uint32
		args [6]uint64
		want uint32
	}{
		{"kill holder", unix.SYS_KILL, [6]uint64{tid}, eperm},
		{"kill other", unix.SYS_KILL, [6]uint64{other}, allow},
		{"kill holder's id as the signal", unix.SYS_KILL, [6]uint64{other, tid}, allow},
		{"kill holder, high bits set", unix.SYS_KILL, [6]uint64{1<<32 | tid}, eperm},
		{"tkill holder", unix.SYS_TKILL, [6]uint64{tid}, eperm},
		{"rt_sigqueueinfo holder", unix.SYS_RT_SIGQUEUEINFO, [6]uint64{tid}, eperm},
		{"pidfd_open holder", unix.SYS_PIDFD_OPEN, [6]uint64{tid}, eperm},
		{"pidfd_open other", unix.SYS_PIDFD_OPEN, [6]uint64{other}, allow},
		{"tgkill holder", unix.SYS_TGKILL, [6]uint64{other, tid}, eperm},
		{"tgkill holder's id as the group", unix.SYS_TGKILL, [6]uint64{tid, other}, allow},
		{"rt_tgsigqueueinfo holder", unix.SYS_RT_TGSIGQUEUEINFO, [6]uint64{other, tid}, eperm},
		{"rt_tgsigqueueinfo other", unix.SYS_RT_TGSIGQUEUEINFO, [6]uint64{tid, other}, allow},
		{"F_SETOWN holder", unix.SYS_FCNTL, [6]uint64{3, unix.F_SETOWN, tid}, eperm},
		{"F_SETOWN other", unix.SYS_FCNTL, [6]uint64{3, unix.F_SETOWN, other}, allow},
		{"F_SETOWN_EX", unix.SYS_FCNTL, [6]uint64{3, unix.F_SETOWN_EX}, eperm},
		{"F_SETFL holder's id", unix.SYS_FCNTL, [6]uint64{3, unix.F_SETFL, tid}, allow},
		{"F_GETOWN_EX", unix.SYS_FCNTL, [6]uint64{3, unix.F_GETOWN_EX}, allow},
		{"FIOSETOWN", unix.SYS_IOCTL, [6]uint64{3, ioctlFIOSETOWN}, eperm},
		{"SIOCSPGRP", unix.SYS_IOCTL, [6]uint64{3, ioctlSIOCSPGRP}, eperm},
		{"TCGETS", unix.SYS_IOCTL, [6]uint64{0, unix.TCGETS}, allow},
		{"FIONREAD of fd tid", unix.SYS_IOCTL, [6]uint64{tid, 0x541B}, allow},
	}
	for _, c := range cases {
		if got := runBPF(t, guarded, filterArch, c.nr, c.args); got != c.want {
			t.Errorf("%s: action %#x, want %#x", c.name, got, c.want)
		}
		if got := runBPF(t, plain, filterArch, c.nr, c.args); got != allow {
			t.Errorf("%s without a holder: action %#x, want allow", c.name, got)
		}
	}
}

//go:build linux && (amd64 || arm64)

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func init() {
	// nettcp:PORT|FLAGS puts this thread under the held ruleset it finds at
	// RulesetFD (enforced with FLAGS) and, the network off, the network
	// domain, with stdin closed first so that the network ruleset gets
	// descriptor 0; then it connects to 127.0.0.1:PORT over TCP. There is
	// no seccomp filter here: Landlock alone decides.
	probeOps["nettcp"] = func(a string) string {
		port, flags, _ := strings.Cut(a, "|")
		n, err := strconv.Atoi(port)
		if err != nil {
			return result(err)
		}
		f, err := strconv.ParseUint(flags, 10, 32)
		if err != nil {
			return result(err)
		}
		runtime.LockOSThread() // never unlocked: the thread ends with the probe
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return result(err)
		}
		if err := unix.Close(0); err != nil {
			return result(err)
		}
		p := Policy{Mode: ModeWorkspaceWrite, Landlock: true, Launch: &LaunchInfo{Ruleset: true, RulesetFlags: uint32(f)}}
		if err := restrictThread(p); err != nil {
			return "restrict:" + strings.ReplaceAll(err.Error(), " ", "_")
		}
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return "socket-" + result(err)
		}
		defer unix.Close(fd)
		return result(unix.Connect(fd, &unix.SockaddrInet4{Port: n, Addr: [4]byte{127, 0, 0, 1}}))
	}
}

// With the network off, the thread that holds the policy is in a Landlock
// domain that allows no TCP connection, whichever descriptor the network
// ruleset got: 0 too, in a launcher started with stdin closed. (In the
// launcher the seccomp filter refuses the socket itself; on an
// architecture the filter does not know, this domain is all there is.)
func TestNetworkDomainWithStdinClosed(t *testing.T) {
	t.Parallel()
	if Probe().LandlockABI < abiTCP {
		t.Skip("no Landlock TCP rules")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: t.TempDir(), Landlock: true}
	mustPrepare(t, &p)
	t.Cleanup(p.Release)
	files, info, err := p.launchFiles()
	if err != nil {
		t.Fatal(err)
	}
	op := "nettcp:" + strconv.Itoa(port) + "|" + strconv.FormatUint(uint64(info.RulesetFlags), 10)
	cmd := exec.Command(probeExe(t), probeArg, op)
	cmd.ExtraFiles = []*os.File{devNull(t), files[0]} // fd 3, and the ruleset at RulesetFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the probe: %v\n%s", err, out)
	}
	if got := probeResults(string(out))[op]; got != "EACCES" {
		t.Errorf("a TCP connection from the confined thread: %q, want EACCES\n%s", got, out)
	}
}

// A launch whose policy asks for Landlock without a held ruleset (an argv
// not written by Command) is refused with the reason on the status pipe,
// not by a crash of the launcher.
func TestLauncherRefusesLandlockWithoutRuleset(t *testing.T) {
	t.Parallel()
	for _, pol := range []string{
		"odek-launch/1 workspace-write net=1 landlock=1 ruleset=0 flags=0",
		"odek-launch/1 read-only net=0 landlock=1 ruleset=0 flags=0",
	} {
		code, msg := launcherStatus(t, LauncherArg, pol, "--", "/bin/true")
		if code != 125 || !strings.HasPrefix(msg, "error: ") || !strings.Contains(msg, "not prepared") {
			t.Errorf("%q: exit %d, status %q; want 125 and the policy not prepared", pol, code, msg)
		}
	}
}

// Only a Landlock policy gets a supervisor for its metadata calls: the
// supervisor allows what lies beneath the policy's writable roots, which
// without Landlock bound nothing. A launch argv that says landlock=0 but
// carries a ruleset and a root (Command never writes one) gets EPERM for
// a chmod in that root, as every policy without Landlock does.
func TestNoSupervisorWithoutLandlock(t *testing.T) {
	t.Parallel()
	needFilter(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(ws, "f")
	mkfile(t, f, "x")
	root, err := os.OpenFile(ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	op := "fchmodat:" + f
	if ctl := probeControl(t, op)[op]; ctl != "ok" {
		t.Skipf("unconfined: %s", ctl)
	}
	if err := os.Chmod(f, 0o600); err != nil { // the control's chmod undone
		t.Fatal(err)
	}
	pol := "odek-launch/1 workspace-write net=1 landlock=0 ruleset=1 flags=0 " + strconv.Quote(ws)
	cmd := exec.Command(probeExe(t), LauncherArg, pol, "--", probeExe(t), probeArg, op)
	cmd.ExtraFiles = []*os.File{devNull(t), devNull(t), root} // status, the ruleset's place, the root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the launch: %v\n%s", err, out)
	}
	if got := probeResults(string(out))[op]; got != "EPERM" {
		t.Errorf("a chmod in the root of a launch without Landlock: %q, want EPERM\n%s", got, out)
	}
	if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode is now %v (%v)", fi.Mode(), err)
	}
}

func init() {
	// listener reports whether the kernel gives this process a seccomp
	// listener (ok), or the errno it refuses one with (a listener is
	// installed above it: odek sandboxed in odek, a container engine's).
	probeOps["listener"] = func(string) string {
		runtime.LockOSThread() // the filter is this thread's; the probe ends soon
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return result(err)
		}
		prog := []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}
		fd, err := seccompFD(prog, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
		if err == nil {
			unix.Close(fd)
		}
		return result(err)
	}
}

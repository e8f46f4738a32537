package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Main is the launcher (args is os.Args, args[1] == LauncherArg). It
// returns the target's exit code (128+n for a signal), or 125 when it
// could not start the target, after the status pipe said why.
func Main(args []string) int {
	// The main thread never takes the policy (holdPolicy checks): Go
	// cannot end the main thread, and a command in the same domain as the
	// thread group's leader could signal the whole launcher by its pid.
	runtime.LockOSThread()
	status := statusPipe()
	fail := func(err error) int {
		if status != nil {
			fmt.Fprintf(status, "error: %s\n", oneLine(err.Error()))
		}
		return 125
	}
	if err := harden(); err != nil {
		return fail(err)
	}
	if err := sealInherited(); err != nil {
		return fail(err)
	}
	if len(args) < 5 || args[3] != "--" {
		return fail(fmt.Errorf("%w: want %s <policy> -- <command> [args]", ErrLauncher, LauncherArg))
	}
	p, err := decodeLaunch(args[2])
	if err != nil {
		return fail(err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err))
	}
	path, err := exec.LookPath(args[4])
	if err != nil {
		return fail(err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pid, err := startTarget(p, path, args[4:])
	if err != nil {
		return fail(err)
	}
	if status != nil {
		fmt.Fprintln(status, StatusReady)
	}
	code := reap(pid, sigs)
	if status != nil {
		fmt.Fprintln(status, StatusDone)
	}
	return code
}

// startTarget starts the target: directly when p confines nothing (the
// launcher only reaps), else from a thread that holds the policy.
func startTarget(p Policy, path string, argv []string) (int, error) {
	if !p.Sandboxed() {
		proc, err := os.StartProcess(path, argv, &os.ProcAttr{
			Env: targetEnv(os.Environ()), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		})
		if err != nil {
			return 0, err
		}
		return proc.Pid, nil
	}
	started := make(chan forked, 1)
	go holdPolicy(p, path, argv, started)
	f := <-started
	return f.pid, f.err
}

type forked struct {
	pid int
	err error
}

// holdPolicy puts one thread of the launcher under p and starts the target
// from it: Landlock, seccomp, no_new_privs and the capability sets are a
// thread's, and a child inherits its parent thread's. Go runs no code of
// ours between fork and exec, so the thread that forks must hold the
// policy itself; this costs one start of odek per call less than a second
// stage that takes the policy and executes the target.
//
// The thread never returns to Go's pool (it ends only with the launcher):
// it stays the target's parent thread, so a target's parent-death signal
// fires when the launcher ends, not when one of its threads does. It is in
// the command's Landlock domain, where scoping allows signals; the filter
// refuses every call that names it (installFilter's launcherTID), and the
// launcher is non-dumpable, so the command can neither signal nor trace it.
// Every other thread stays outside the domain: Go starts new threads for a
// locked thread from a template thread, never by cloning the locked one.
func holdPolicy(p Policy, path string, argv []string, started chan<- forked) {
	runtime.LockOSThread() // never unlocked
	tid := unix.Gettid()
	if tid == unix.Getpid() {
		started <- forked{err: fmt.Errorf("%w: the policy would be held by the main thread", ErrLauncher)}
		return
	}
	listener, err := apply(p, tid)
	if err != nil {
		started <- forked{err: err} // the thread, half confined, ends with this goroutine
		return
	}
	if listener >= 0 {
		go supervise(listener, heldRoots(p))
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: targetEnv(os.Environ()), Files: []uintptr{0, 1, 2}})
	if err != nil {
		started <- forked{err: &os.PathError{Op: "exec", Path: path, Err: err}}
		return
	}
	started <- forked{pid: pid}
	select {} // the target's parent thread, until the launcher exits
}

// apply puts the calling thread under p: no_new_privs, no capabilities,
// Landlock, and the seccomp filter (with the network off: no sockets). It
// returns the filter's listener for the launcher's supervisor (-1: none).
func apply(p Policy, launcherTID int) (int, error) {
	if !p.Sandboxed() {
		return -1, nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("PR_SET_NO_NEW_PRIVS: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return -1, fmt.Errorf("drop capabilities: %w", err)
	}
	if p.Landlock {
		if err := restrictThread(p); err != nil {
			return -1, err
		}
	}
	if filterArch == 0 {
		return -1, nil
	}
	spec := filterSpec{networkOff: !p.Network, unixSockets: p.Landlock && landlockABI() >= abiResolveUnix,
		supervised: supervised(p), launcherTID: uint32(launcherTID)}
	listener, err := installFilter(spec)
	if err != nil {
		return -1, fmt.Errorf("seccomp: %w", err)
	}
	return listener, nil
}

// harden makes the process non-dumpable before it holds anything of the
// policy: the commands it starts run as its user, and could otherwise
// ptrace it or read its memory and descriptors (the ruleset, the writable
// roots, the seccomp listener) through /proc. In odek internal/childkey's
// init has done it already (it is initialised first); a test binary that
// is its own launcher has no childkey, so the launcher does not rely on it.
func harden() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("PR_SET_DUMPABLE: %w", err)
	}
	return nil
}

// statusPipe is fd 3 when the parent gave one, close-on-exec so the target
// never holds it.
func statusPipe() *os.File {
	if _, err := unix.FcntlInt(StatusFD, unix.F_GETFD, 0); err != nil {
		return nil
	}
	syscall.CloseOnExec(StatusFD)
	return os.NewFile(StatusFD, "status")
}

func closeFD(fd int) error { return unix.Close(fd) }

func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}

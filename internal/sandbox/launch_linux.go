package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Main is the launcher (args is os.Args, args[1] == LauncherArg), or its
// second stage (args[1] == confineArg). It returns the target's exit code
// (128+n for a signal), or 125 when it could not start the target, after
// the status pipe said why.
func Main(args []string) int {
	if len(args) > 1 && args[1] == confineArg {
		return confine(args)
	}
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
	// No thread of the launcher ever takes the policy: the command could
	// signal that thread (Landlock's scoping allows signals inside one
	// domain), and a signal to one thread kills the whole launcher, which
	// would orphan the command's tree. The second stage, a process of its
	// own, takes the policy and becomes the target by exec.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err))
	}
	path, err := exec.LookPath(args[4])
	if err != nil {
		return fail(err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pid, err := startTarget(p, args[0], args[2], path, args[4:])
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
// launcher only reaps), else through the second stage.
func startTarget(p Policy, self, policy, path string, argv []string) (int, error) {
	if !p.Sandboxed() {
		proc, err := os.StartProcess(path, argv, &os.ProcAttr{
			Env: targetEnv(os.Environ()), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		})
		if err != nil {
			return 0, err
		}
		return proc.Pid, nil
	}
	return startConfined(p, self, policy, path, argv)
}

// startConfined starts the second stage (this executable again, with
// confineArg), which puts itself under the policy and executes path with
// argv. It returns once the exec is done: the second stage's error pipe
// closes empty when the exec works, and holds the reason when it did not
// (the stage has then exited; it is reaped here).
func startConfined(p Policy, self, policy, path string, argv []string) (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	stage := append([]string{self, confineArg, policy, "--", path}, argv...)
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr, w}
	var ours *os.File // the launcher's end of the listener's socket
	if supervised(p) {
		theirs, mine, err := listenerSocket()
		if err != nil {
			return 0, err
		}
		defer theirs.Close()
		ours = mine
		defer ours.Close()
		files = append(files, os.NewFile(RulesetFD, "landlock ruleset"), theirs)
	} else if p.Launch != nil && p.Launch.Ruleset {
		files = append(files, os.NewFile(RulesetFD, "landlock ruleset"))
	}
	proc, err := os.StartProcess("/proc/self/exe", stage, &os.ProcAttr{Env: os.Environ(), Files: files})
	w.Close()
	if err != nil {
		return 0, err
	}
	if ours != nil {
		files[len(files)-1].Close()
		if listener := receiveListener(ours); listener >= 0 {
			go supervise(listener, heldRoots(p))
		}
	}
	msg, _ := io.ReadAll(io.LimitReader(r, 4096))
	if len(msg) > 0 {
		_, _ = proc.Wait()
		return 0, errors.New(strings.TrimSpace(string(msg)))
	}
	return proc.Pid, nil
}

// confine is the second stage: it puts its own thread under the policy
// and executes the target on that thread, so the target (same pid, the
// launcher's child) is the only process in the policy's domain. What went
// wrong before the exec goes to fd 3, which an exec that works closes.
func confine(args []string) int {
	errPipe := os.NewFile(StatusFD, "confine status")
	syscall.CloseOnExec(StatusFD)
	fail := func(err error) int {
		fmt.Fprintln(errPipe, oneLine(err.Error()))
		return 125
	}
	if err := harden(); err != nil {
		return fail(err)
	}
	if err := sealInherited(); err != nil { // the launcher passes none; this stage holds its own promise
		return fail(err)
	}
	if len(args) < 6 || args[3] != "--" {
		return fail(fmt.Errorf("%w: want %s <policy> -- <path> <argv0> [args]", ErrLauncher, confineArg))
	}
	p, err := decodeLaunch(args[2])
	if err != nil {
		return fail(err)
	}
	runtime.LockOSThread() // the policy is per thread: exec from the thread that took it
	listener, err := apply(p)
	if err != nil {
		return fail(err)
	}
	if err := handOver(p, listener); err != nil {
		return fail(err)
	}
	err = syscall.Exec(args[4], args[5:], targetEnv(os.Environ()))
	return fail(&os.PathError{Op: "exec", Path: args[4], Err: err})
}

// apply puts the calling thread under p: no_new_privs, no capabilities,
// Landlock, and the seccomp filter (with the network off: no sockets). It
// returns the filter's listener for the launcher's supervisor (-1: none).
func apply(p Policy) (int, error) {
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
		supervised: supervised(p)}
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

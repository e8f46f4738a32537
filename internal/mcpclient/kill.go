package mcpclient

import (
	"slices"
	"sync"
	"syscall"
)

// live is every stdio server this process has started and not yet shut
// down. It is process-wide on purpose: when the operator presses Ctrl-C a
// second time, odek is about to exit at once and must take every server's
// process group with it, whichever Set or start-up owns it.
var live = &liveServers{m: map[*stdioTransport]bool{}}

type liveServers struct {
	mu sync.Mutex
	m  map[*stdioTransport]bool
}

func (l *liveServers) add(t *stdioTransport) {
	l.mu.Lock()
	l.m[t] = true
	l.mu.Unlock()
}

func (l *liveServers) remove(t *stdioTransport) {
	l.mu.Lock()
	delete(l.m, t)
	l.mu.Unlock()
}

// KillAll sends SIGKILL to the process group of every stdio server this
// process started and has not shut down yet, and returns their names, sorted.
// It does not wait: it is for the moment before odek exits on a second
// interrupt, when no server may outlive it. Safe to call at any time, from
// any goroutine; the Clients stay usable only for Close.
func KillAll() []string {
	live.mu.Lock()
	defer live.mu.Unlock()
	var names []string
	for t := range live.m {
		t.signal(syscall.SIGKILL)
		names = append(names, t.name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

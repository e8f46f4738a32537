package mcpclient

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// RunningCall is one tool call in flight, for a heartbeat or status line:
// since when it runs and, when the server answered it with a task (the
// Tasks extension), the task's id, status and status message.
type RunningCall struct {
	Server string
	Tool   string
	Since  time.Time
	// TaskID, TaskStatus and TaskMessage are set while the call polls a
	// task; TaskStatus is the status of the latest poll.
	TaskID, TaskStatus, TaskMessage string
	// Polls counts the tasks/get requests sent so far.
	Polls int
}

// activeCalls are the tool calls in flight on one Client, by a key of
// their own, so that a request a legacy server sends mid-call can be tied
// to the call when only one is running, and Running can say what runs.
type activeCalls struct {
	mu  sync.Mutex
	seq int
	m   map[int]*RunningCall
}

// start records a call; the returned key updates it (task) and the func
// forgets it.
func (a *activeCalls) start(server, tool string) (int, func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[int]*RunningCall{}
	}
	a.seq++
	key := a.seq
	a.m[key] = &RunningCall{Server: server, Tool: tool, Since: time.Now()}
	return key, func() {
		a.mu.Lock()
		delete(a.m, key)
		a.mu.Unlock()
	}
}

// task records the latest poll of the call's task.
func (a *activeCalls) task(key int, id, status, message string, polls int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.m[key]; r != nil {
		r.TaskID, r.TaskStatus, r.TaskMessage, r.Polls = id, status, message, polls
	}
}

// only is the tool of the one call in flight; "" when none or several are.
func (a *activeCalls) only() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.m) != 1 {
		return ""
	}
	for _, r := range a.m {
		return r.Tool
	}
	return ""
}

// snapshot copies the calls in flight, oldest first.
func (a *activeCalls) snapshot() []RunningCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]RunningCall, 0, len(a.m))
	for _, r := range a.m {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(x, y RunningCall) int {
		if c := x.Since.Compare(y.Since); c != 0 {
			return c
		}
		return strings.Compare(x.Tool, y.Tool)
	})
	return out
}

// Running returns the tool calls in flight on this server, oldest first.
func (c *Client) Running() []RunningCall { return c.calls.snapshot() }

// Running returns the tool calls in flight on every server of the set,
// oldest first: what a heartbeat shows while MCP tools work.
func (s *Set) Running() []RunningCall {
	var out []RunningCall
	for _, c := range s.clients {
		out = append(out, c.Running()...)
	}
	slices.SortStableFunc(out, func(x, y RunningCall) int { return x.Since.Compare(y.Since) })
	return out
}

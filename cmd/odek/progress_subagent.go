package main

import (
	"fmt"

	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

// subagentLine shows what a sub-agent reports while it runs: its start, the
// tools it calls and how it finished. The names come from the child, so they
// are shown on one bounded line.
func (v *progressView) subagentLine(task int, l *wire.Line) {
	if v == nil {
		return
	}
	var s string
	switch l.Type {
	case wire.LineStarted:
		s = fmt.Sprintf("started (pid %d, depth %d)", l.PID, l.Depth)
	case wire.LineToolCall:
		s = "→ " + untrusted.OneLine(l.Name, 64)
	case wire.LineFinished:
		s = fmt.Sprintf("finished: %s · %d iteration(s) · %.1fs", untrusted.OneLine(l.Status, 32), l.Iterations, l.DurationS)
	default:
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.line(fmt.Sprintf("  ↳ task %d %s", task+1, s))
	v.drawStatus()
}

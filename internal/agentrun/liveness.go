package agentrun

import (
	"github.com/odek-run/odek/internal/loop"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// livenessOptions wires what tells slow from stuck into the loop: the
// run's progress clock (which MCP progress reports reach through the
// notices), the heartbeat, the stall timeout and the loop breaker.
func (r *Run) livenessOptions(opts *loop.Options) {
	cfg := r.conf.cfg
	opts.Liveness = r.sinks.notices.Monitor()
	opts.Heartbeat, opts.StallTimeout = cfg.Heartbeat, cfg.StallTimeout
	opts.Loops = loop.LoopLimits{HintAfter: offIsNegative(cfg.LoopBreaker.HintAfter),
		StopAfter: offIsNegative(cfg.LoopBreaker.StopAfter), Exempt: cfg.LoopBreaker.Exempt}
}

// offIsNegative maps the config's 0 ("never") to the loop's off (< 0).
func offIsNegative(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// heartbeatLine tells a sub-agent's parent that the child progressed since
// its last heartbeat (a line the parent counts as a sign of life; the
// heartbeat event itself it does not, since a child that is alive is not
// one that gets anywhere).
func (c *child) heartbeatLine(p loop.Progress) {
	if p.Live != nil && p.Live.SinceProgress < c.r.conf.cfg.Heartbeat {
		c.out.Send(wire.Line{Type: wire.LineProgress, Step: p.Iteration})
	}
}

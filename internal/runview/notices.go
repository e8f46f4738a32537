package runview

import (
	"sync/atomic"

	"github.com/odek-run/odek/internal/events"
	"github.com/odek-run/odek/internal/liveness"
	"github.com/odek-run/odek/internal/mcpclient"
)

// Notices turns what MCP servers did during calls into events and
// status-line progress. The view is set once the run has one; notices come
// from the connections' goroutines, hence the atomic.
type Notices struct {
	em   *events.Emitter
	view atomic.Pointer[Progress]
	live atomic.Pointer[liveness.Monitor] // the run's progress clock (Monitor)
}

// NewNotices reports notices as events on em (nil: none, for odek tools).
func NewNotices(em *events.Emitter) *Notices { return &Notices{em: em} }

// SetView makes v show the tools' progress from now on.
func (n *Notices) SetView(v *Progress) { n.view.Store(v) }

// Handle is mcpclient.Options.OnNotice; a nil Notices drops what it hears.
func (n *Notices) Handle(x mcpclient.Notice) {
	if n == nil {
		return
	}
	tool := ""
	if x.Tool != "" {
		tool = x.Server + "__" + x.Tool
	}
	switch x.Kind {
	case mcpclient.NoticeProgress:
		data := map[string]any{"server": x.Server, "progress": x.Progress}
		if x.Total > 0 {
			data["total"] = x.Total
		}
		if x.Reason != "" {
			data["message"] = x.Reason
		}
		n.em.Emit(events.MCPProgress, 0, tool, data)
		n.view.Load().ToolProgress(tool, x.ProgressLine())
		n.live.Load().Reported(tool, x.Progress, x.Reason) // progress that moves is a sign of life
	case mcpclient.NoticeServerSkipped:
		n.em.Emit(events.MCPServerSkipped, 0, "", map[string]any{"server": x.Server, "reason": x.Reason})
	case mcpclient.NoticeServerRestarted, mcpclient.NoticeServerLost:
		typ, count := events.MCPServerRestarted, "restart"
		if x.Kind == mcpclient.NoticeServerLost {
			typ, count = events.MCPServerLost, "restarts"
		}
		n.em.Emit(typ, 0, "", map[string]any{"server": x.Server, count: x.Restart, "restart_limit": x.Limit, "reason": x.Reason})
	case mcpclient.NoticeTask:
		data := map[string]any{"server": x.Server, "task_id": x.Task, "status": x.TaskStatus}
		if x.Reason != "" {
			data["message"] = x.Reason
		}
		n.em.Emit(events.MCPTask, 0, tool, data)
		n.view.Load().ToolProgress(tool, "task "+x.TaskStatus)
		n.live.Load().Reported(tool+" task", 0, x.TaskStatus+" "+x.Reason) // a status or message that moves
	case mcpclient.NoticeInputAnswered, mcpclient.NoticeInputDeclined:
		outcome := "declined"
		if x.Kind == mcpclient.NoticeInputAnswered {
			outcome = "answered"
		}
		n.em.Emit(events.MCPInput, 0, tool, map[string]any{"server": x.Server, "method": x.Method, "outcome": outcome, "reason": x.Reason})
	}
}

// Monitor is the run's progress clock, made on first use: MCP progress
// reports reach it through the notices.
func (n *Notices) Monitor() *liveness.Monitor {
	if m := n.live.Load(); m != nil {
		return m
	}
	n.live.CompareAndSwap(nil, liveness.New(nil))
	return n.live.Load()
}

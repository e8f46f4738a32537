package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/untrusted"
)

// Progress: a tools/call carries _meta.progressToken, and each
// notifications/progress for that token becomes a notice (the status line,
// mcp_progress events) and, with idle_timeout_seconds set, restarts the
// call's idle deadline. Progress never extends a call: timeout_seconds is
// the deadline of the whole call (callToolResult).

// errIdleTimeout is the cause of a call round that heard nothing, not
// even progress, for idle_timeout_seconds.
var errIdleTimeout = errors.New("idle timeout")

// boundIdle names the idle deadline in a timeoutError.
const boundIdle = "idle_timeout_seconds"

// progressNoticeEvery throttles progress notices per call, so a chatty
// server cannot flood the event stream.
const progressNoticeEvery = time.Second

// progressParams is what odek reads of notifications/progress.
type progressParams struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress float64         `json:"progress"`
	Total    float64         `json:"total"`
	Message  string          `json:"message"`
}

// parseProgress decodes a progress notification; false when it is not one
// odek can route.
func parseProgress(params json.RawMessage) (progressParams, bool) {
	var p progressParams
	if json.Unmarshal(params, &p) != nil || len(p.Token) == 0 {
		return p, false
	}
	return p, true
}

// progressRoutes maps the raw JSON of a progress token to its call's handler.
type progressRoutes struct {
	mu     sync.Mutex
	routes map[string]func(progressParams)
}

func (r *progressRoutes) add(token string, f func(progressParams)) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.routes == nil {
		r.routes = map[string]func(progressParams){}
	}
	r.routes[token] = f
	return func() {
		r.mu.Lock()
		delete(r.routes, token)
		r.mu.Unlock()
	}
}

// deliver runs the handler of p's token; tokens of finished or forgotten
// calls are dropped quietly (servers keep sending after a cancel).
func (r *progressRoutes) deliver(params json.RawMessage) {
	p, ok := parseProgress(params)
	if !ok {
		return
	}
	r.mu.Lock()
	f := r.routes[string(p.Token)]
	r.mu.Unlock()
	if f != nil {
		f(p)
	}
}

// callWithProgress sends one round of tools/call with a progress token and
// waits for its answer within ctx (the whole call's deadline) and, when
// idle_timeout_seconds is set, an idle deadline that each progress
// notification restarts. A JSON-RPC error comes back as an *Error; a
// transport or context failure as it is (errIdleTimeout for the idle
// deadline), for callToolResult to word.
func (c *Client) callWithProgress(ctx context.Context, tool string, params map[string]any) (json.RawMessage, error) {
	token := "odek-" + strconv.FormatInt(c.progressSeq.Add(1), 10)
	params["_meta"] = map[string]any{metaProgressToken: token}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var idle *time.Timer
	if c.lim.idle > 0 {
		idle = time.AfterFunc(c.lim.idle, func() { cancel(errIdleTimeout) })
		defer idle.Stop()
	}
	var last time.Time
	var mu sync.Mutex
	cn := c.link()
	remove := cn.progress.add(strconv.Quote(token), func(p progressParams) {
		if idle != nil {
			idle.Reset(c.lim.idle)
		}
		mu.Lock()
		due := time.Since(last) >= progressNoticeEvery
		if due {
			last = time.Now()
		}
		mu.Unlock()
		if due {
			c.notice(Notice{Kind: NoticeProgress, Tool: tool, Progress: p.Progress, Total: p.Total, Reason: untrusted.OneLine(p.Message, 200)})
		}
	})
	defer remove()
	m, err := c.roundTrip(rctx, cn, methodToolsCall, c.withMeta(params))
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(rctx), errIdleTimeout) {
			return nil, errIdleTimeout
		}
		return nil, err
	}
	if m.isError() {
		e := m.rpcError().toRPCError()
		if e.Code == CodeMissingClientCapability && !c.answersInput() {
			// The server wanted to ask for input odek did not offer to give.
			reason := "odek declares the elicitation capability only when mcp_servers." + c.name + ".elicitation holds answers"
			e.Message += "; " + reason
			c.notice(Notice{Kind: NoticeInputDeclined, Tool: tool, Method: methodToolsCall, Reason: reason})
		}
		return nil, newError(c.name, methodToolsCall, classMCP, e)
	}
	return m.Result, nil
}

// progressLine renders progress for a status line: "3/10", "40%" or "3".
func progressLine(progress, total float64) string {
	switch {
	case total > 0 && total == float64(int64(total)) && progress == float64(int64(progress)):
		return fmt.Sprintf("%d/%d", int64(progress), int64(total))
	case total > 0:
		return fmt.Sprintf("%.0f%%", 100*progress/total)
	}
	return strconv.FormatFloat(progress, 'f', -1, 64)
}

// ProgressLine renders a progress notice for a status line.
func (n Notice) ProgressLine() string { return progressLine(n.Progress, n.Total) }

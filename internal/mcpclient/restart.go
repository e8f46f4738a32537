package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/odek-run/odek/internal/untrusted"
)

// Restarts: a stdio server that exited, or an HTTP server that no longer
// knows odek's session, is started (or opened) again when the next call
// needs it, at most restart_limit times a run, with the same config, env,
// sandbox and limits, after the Gate's re-check (Rechecker) and with its
// tools listed again: a tool that is not what was approved is refused, not
// called. A call that was running when the server went away fails, unless
// the operator trusts the server's hints and it marks the tool read-only or
// idempotent: then the call is sent again, within what is left of its
// deadline.

// restartState is what a Client knows of its restarts; guarded by mu,
// which also serialises them.
type restartState struct {
	mu      sync.Mutex
	count   int
	gen     int                // bumped by every restart that succeeded
	lost    error              // set once the server is gone for good
	listed  map[string]ToolDef // the tools as first listed
	changed map[string]string  // tool → why the restarted server's is refused
}

// Rechecker is implemented by a Gate that can say, without asking anyone,
// whether a server it let start may be started again (its definition and
// bound files still approved). Start hands it to each client; without
// one, a project server is never restarted.
type Rechecker interface {
	Recheck(ctx context.Context, spec ServerSpec) error
}

// lostError is a server that went away and is not started again.
type lostError struct {
	Cause    string // why it went away, one line
	Restarts int    // restarts this run
	Limit    int    // restart_limit
	Why      string // why no restart: "" for the limit
}

func (e *lostError) Error() string {
	switch {
	case e.Why != "":
		return fmt.Sprintf("%s; not started again: %s", e.Cause, e.Why)
	case e.Limit == 0:
		return fmt.Sprintf("%s; not started again (restart_limit=0)", e.Cause)
	}
	return fmt.Sprintf("%s; not started again: it was already restarted %d time(s) this run (restart_limit=%d)", e.Cause, e.Restarts, e.Limit)
}

// errSessionLost is an HTTP 404 to a request that carried a session: the
// server forgot the session (it restarted); the request was not run.
var errSessionLost = errors.New("the server no longer knows odek's session (HTTP 404)")

// remember keeps the tools as first listed, to compare a restart's with.
func (r *restartState) remember(tools []ToolDef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.listed != nil {
		return
	}
	r.listed = map[string]ToolDef{}
	for _, t := range tools {
		r.listed[t.Name] = t
	}
}

// refused says why a tool of a restarted server is not called, "" if it is.
func (r *restartState) refused(tool string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed[tool]
}

// hints returns the tool's annotations as first listed.
func (r *restartState) hints(tool string) *ToolAnnotations {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listed[tool].Annotations
}

// ready returns the connection to use: the one in use, or, when the server
// went away in a way a restart mends, a new one. replay names the call that
// is sent again, for the notice ("" for a call not sent yet).
func (c *Client) ready(ctx context.Context, replay string) (*conn, error) {
	gen := c.generation()
	cn := c.link()
	cause := cn.err()
	if cause == nil {
		return cn, nil
	}
	if !c.restartable(cause) {
		return nil, cause
	}
	return c.restartFrom(ctx, gen, cause, replay)
}

// generation counts the successful restarts; a caller that saw the server
// go away under generation g restarts it only if nobody did since.
func (c *Client) generation() int {
	c.restart.mu.Lock()
	defer c.restart.mu.Unlock()
	return c.restart.gen
}

// restartable reports whether a connection that ended with err may be
// mended by a restart: a stdio server that exited or broke its pipes, or an
// HTTP session the server forgot. Not what odek ended itself (Close, a
// message over max_response_bytes: fail closed), and never a replay.
func (c *Client) restartable(err error) bool {
	var tl *ResponseTooLargeError
	switch {
	case c.opts.Replay != nil || c.closing.Load():
		return false
	case errors.Is(err, errClosed), errors.As(err, &tl):
		return false
	case c.http != nil:
		return errors.Is(err, errSessionLost)
	}
	return true
}

// restartFrom starts the server again unless another call already did, the
// limit is reached or the re-check refuses.
func (c *Client) restartFrom(ctx context.Context, gen int, cause error, replay string) (*conn, error) {
	r := &c.restart
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := c.link(); r.gen != gen && cur.err() == nil {
		return cur, nil // restarted while this call waited
	}
	if r.lost != nil {
		return nil, r.lost
	}
	line := causeLine(cause)
	if r.count >= c.lim.restarts {
		return nil, c.lose(&lostError{Cause: line, Restarts: r.count, Limit: c.lim.restarts})
	}
	if err := c.recheckSpawn(ctx); err != nil {
		return nil, c.lose(&lostError{Cause: line, Why: err.Error()})
	}
	r.count++
	cn, err := c.reopen(ctx, c.link())
	if err != nil {
		if r.count >= c.lim.restarts || c.closing.Load() {
			return nil, c.lose(&lostError{Cause: line, Restarts: r.count, Limit: c.lim.restarts, Why: "the restart failed: " + untrusted.OneLine(err.Error(), 300)})
		}
		return nil, newError(c.name, "restart", classMCP, fmt.Errorf("%s; the restart failed: %w", line, err))
	}
	r.gen++
	reason := line
	if replay != "" {
		reason += "; the running call of " + replay + " is sent again (trusted read-only or idempotent)"
	}
	c.notice(Notice{Kind: NoticeServerRestarted, Reason: reason, Restart: r.count, Limit: c.lim.restarts})
	return cn, nil
}

// lose records that the server is gone for good, says so once, and
// returns the error every later call gets.
func (c *Client) lose(e *lostError) error {
	c.restart.lost = newError(c.name, "restart", classMCP, e)
	c.notice(Notice{Kind: NoticeServerLost, Reason: e.Error(), Restart: e.Restarts, Limit: e.Limit})
	return c.restart.lost
}

// recheckSpawn asks the Gate whether the server may start again.
func (c *Client) recheckSpawn(ctx context.Context) error {
	switch {
	case c.opts.recheck != nil:
		return c.opts.recheck(ctx)
	case c.opts.project:
		return errors.New("a project server is started again only after the approval gate re-checks it")
	}
	return nil
}

// reopen starts a new process (stdio) or forgets the session (HTTP), opens
// the server as at the start and lists its tools again.
func (c *Client) reopen(ctx context.Context, old *conn) (*conn, error) {
	cn := old
	if c.http == nil {
		_ = old.stop(grace{exit: time.Millisecond, term: or(c.opts.timings.term, termGrace)})
		t, err := c.startProcess()
		if err != nil {
			return nil, err
		}
		cn = newConn(c.tapped(t), c.serveRequest)
		c.connMu.Lock()
		if c.closing.Load() { // Close ran meanwhile and stopped old
			c.connMu.Unlock()
			_ = cn.stop(grace{exit: time.Millisecond, term: time.Millisecond})
			return nil, errClosed
		}
		c.conn = cn
		c.connMu.Unlock()
	} else {
		c.http.forgetSession()
	}
	c.inited.Store(false)
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	tools, err := c.listTools(ctx)
	if err != nil {
		return nil, err
	}
	c.compareTools(tools)
	return cn, nil
}

// compareTools refuses every first-listed tool the restarted server no
// longer offers as it was approved: gone, or with another description,
// schema or hints.
func (c *Client) compareTools(now []ToolDef) {
	r := &c.restart
	byName := map[string]ToolDef{}
	for _, t := range now {
		byName[t.Name] = t
	}
	changed := map[string]string{}
	for name, was := range r.listed {
		t, ok := byName[name]
		switch {
		case !ok:
			changed[name] = "the restarted server no longer offers it"
		case !sameTool(was, t):
			changed[name] = "the restarted server changed it (description, schemas or hints) since it was approved"
		}
	}
	r.changed = changed
}

// sameTool compares two listings of a tool as their JSON (schemas compacted).
func sameTool(a, b ToolDef) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// causeLine says in one line why a connection ended.
func causeLine(err error) string {
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		return "server exited (" + ee.Status + ")"
	case errors.Is(err, errSessionLost):
		return errSessionLost.Error()
	}
	return "connection lost: " + untrusted.OneLine(err.Error(), 200)
}

// replayable reports whether a call of tool that was running when the
// connection broke may be sent again: only when the operator trusts the
// server's hints (trust_annotations) and it marks the tool read-only or
// idempotent, so that running it twice changes nothing more than once.
func (c *Client) replayable(tool string) bool {
	a := c.restart.hints(tool)
	if !c.opts.trustHints || a == nil {
		return false
	}
	return (a.ReadOnlyHint != nil && *a.ReadOnlyHint) || (a.IdempotentHint != nil && *a.IdempotentHint)
}

// brokenDuringCall reports whether err says the connection broke while a
// call was on it (a stdio server exited, an HTTP stream or connection
// broke), so the server may or may not have run it.
func brokenDuringCall(err error) bool {
	var ee *ExitError
	var st *hTTPStatusError
	var e *opError
	var to *timeoutError
	switch {
	case errors.As(err, &ee):
		return true
	case errors.As(err, &e), errors.As(err, &st), errors.As(err, &to), errors.Is(err, errClosed),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, errIdleTimeout):
		return false
	}
	return true
}

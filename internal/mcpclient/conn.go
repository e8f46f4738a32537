package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// transport moves whole JSON-RPC messages between odek and one server.
type transport interface {
	// send writes one encoded message (ending in "\n"). id is our request id,
	// or 0 for notifications and answers to server requests. ctx is the
	// request's own: a transport that can abandon work in flight (an HTTP
	// POST) does so the moment ctx ends, not when the connection closes.
	send(ctx context.Context, msg []byte, id int64) error
	// recv returns the next inbound message. A *requestError concerns a single
	// request; any other error means the connection is dead.
	recv() ([]byte, error)
	// close shuts the peer down and releases everything; it returns once no
	// goroutine of the transport is left. A stdio server gets g.exit to exit
	// after its stdin closes and g.term after SIGTERM before its process
	// group is killed.
	close(g grace) error
}

// outQueueSize bounds the writer's queue; enqueueing waits (bounded by ctx)
// when it is full, so a server that stops reading cannot grow odek's memory.
const outQueueSize = 64

// outItem is one message for the writer. It carries its request's ctx
// across the queue (the one place a ctx is kept in a struct) so the
// transport can cancel the work the moment the caller gives up.
type outItem struct {
	ctx  context.Context
	data []byte
	id   int64
}

type reply struct {
	msg *inbound
	err error
}

// conn multiplexes requests over a transport: one reader goroutine routes
// responses to waiting callers by id, one writer goroutine owns the send side.
// Nothing inbound is queued: notifications are dropped as they are read, and
// responses go to a 1-slot channel of the caller that is still waiting.
type conn struct {
	t transport
	// serve answers server requests other than ping; false = -32601. It
	// runs on its own goroutine (it may wait for a person), with a ctx that
	// ends when the connection does.
	serve func(ctx context.Context, method string, params json.RawMessage) (any, bool)
	// progress routes notifications/progress to the call that asked for it.
	progress progressRoutes
	// quietCancel: a timed-out request is cancelled by closing its HTTP
	// stream alone (2026-07-28 Streamable HTTP), without notifications/cancelled.
	quietCancel atomic.Bool
	out         chan outItem
	quit        chan struct{} // closed by stop: the writer exits
	dead        chan struct{} // closed by the reader when the connection ends

	mu      sync.Mutex
	pending map[int64]chan reply
	nextID  int64
	deadErr error
	idle    chan struct{} // closed when pending drains, if someone waits for it

	wg       sync.WaitGroup
	stopOnce sync.Once
}

func newConn(t transport, serve func(context.Context, string, json.RawMessage) (any, bool)) *conn {
	c := &conn{
		t:       t,
		serve:   serve,
		out:     make(chan outItem, outQueueSize),
		quit:    make(chan struct{}),
		dead:    make(chan struct{}),
		pending: make(map[int64]chan reply),
	}
	c.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
	return c
}

func (c *conn) readLoop() {
	defer c.wg.Done()
	for {
		line, err := c.t.recv()
		if err != nil {
			var re *requestError
			if errors.As(err, &re) {
				c.deliver(re.id, reply{err: re.err})
				continue
			}
			c.die(err)
			return
		}
		k, m := classify(line)
		switch k {
		case kindResponse:
			if id, ok := m.intID(); ok {
				c.deliver(id, reply{msg: m})
			}
		case kindRequest:
			c.answer(m)
		case kindNotification:
			if m.Method == methodProgressNotification {
				c.progress.deliver(m.Params)
			}
		}
	}
}

func (c *conn) writeLoop() {
	defer c.wg.Done()
	for {
		select {
		case it := <-c.out:
			ctx := it.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			if err := c.t.send(ctx, it.data, it.id); err != nil && it.id > 0 {
				c.deliver(it.id, reply{err: err})
			}
		case <-c.quit:
			return
		}
	}
}

// answer replies to a server-to-client request: ping at once; one serve
// takes (elicitation/create) on a goroutine of its own, since a person may
// be asked, so the reader goes on routing responses meanwhile; everything
// else gets -32601 at once, because silence costs a minute with some
// servers. A full queue drops the answer rather than block (only a server
// flooding requests can cause that).
func (c *conn) answer(m *inbound) {
	if m.Method == "ping" {
		c.reply(&outbound{ID: m.ID, Result: struct{}{}})
		return
	}
	if c.serve == nil {
		c.reply(&outbound{ID: m.ID, Error: &wireError{Code: -32601, Message: "Method not found"}})
		return
	}
	c.wg.Add(1) // the reader holds one count: stop cannot be past Wait
	go func() {
		defer c.wg.Done()
		ctx, cancel := c.lifetime()
		defer cancel()
		o := &outbound{ID: m.ID}
		if r, ok := c.serve(ctx, m.Method, m.Params); ok {
			o.Result = r
		} else {
			o.Error = &wireError{Code: -32601, Message: "Method not found"}
		}
		c.reply(o)
	}()
}

// reply queues the answer to a server request.
func (c *conn) reply(o *outbound) {
	if data, err := encode(o); err == nil {
		c.tryEnqueue(outItem{data: data})
	}
}

// lifetime is a context that ends when the connection dies or is stopped.
func (c *conn) lifetime() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-c.dead:
		case <-c.quit:
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx, cancel
}

// deliver hands a response to the caller waiting for id; late answers for
// forgotten ids and duplicates find no entry and are dropped.
func (c *conn) deliver(id int64, r reply) {
	c.mu.Lock()
	ch, ok := c.pending[id]
	if ok {
		c.removeLocked(id)
	}
	c.mu.Unlock()
	if ok {
		ch <- r
	}
}

func (c *conn) removeLocked(id int64) {
	delete(c.pending, id)
	if len(c.pending) == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// forget drops a pending id; false means a reply already claimed it.
func (c *conn) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; !ok {
		return false
	}
	c.removeLocked(id)
	return true
}

// die records why the connection ended and fails every pending call with it.
func (c *conn) die(err error) {
	c.mu.Lock()
	c.deadErr = err
	waiting := c.pending
	c.pending = make(map[int64]chan reply)
	if c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
	c.mu.Unlock()
	for _, ch := range waiting {
		ch <- reply{err: err}
	}
	close(c.dead)
}

// err returns why the connection ended, or nil while it is alive.
func (c *conn) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadErr
}

// roundTrip sends a request and waits for its response or ctx. On ctx expiry
// the id is forgotten and the server told via notifications/cancelled; the
// connection stays usable.
func (c *conn) roundTrip(ctx context.Context, method string, params any) (*inbound, error) {
	c.mu.Lock()
	if c.deadErr != nil {
		c.mu.Unlock()
		return nil, c.deadErr
	}
	c.nextID++
	id := c.nextID
	ch := make(chan reply, 1)
	c.pending[id] = ch
	c.mu.Unlock()

	data, err := requestBytes(id, method, params)
	if err == nil {
		err = c.enqueue(ctx, outItem{ctx: ctx, data: data, id: id})
	}
	if err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case r := <-ch:
		return r.msg, r.err
	case <-ctx.Done():
		if !c.forget(id) {
			r := <-ch // the answer raced the deadline and won
			return r.msg, r.err
		}
		if !c.quietCancel.Load() {
			c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": cancelReason(ctx)})
		}
		return nil, ctx.Err()
	}
}

func cancelReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(context.Cause(ctx), errIdleTimeout) {
		return "timeout"
	}
	return "cancelled by client"
}

// notify sends a notification without waiting for queue space.
func (c *conn) notify(method string, params any) {
	if data, err := encode(&outbound{Method: method, Params: params}); err == nil {
		c.tryEnqueue(outItem{data: data})
	}
}

// notifyCtx sends a notification, waiting for queue space up to ctx.
func (c *conn) notifyCtx(ctx context.Context, method string, params any) error {
	data, err := encode(&outbound{Method: method, Params: params})
	if err != nil {
		return err
	}
	return c.enqueue(ctx, outItem{ctx: ctx, data: data})
}

func (c *conn) enqueue(ctx context.Context, it outItem) error {
	select {
	case c.out <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.dead:
		return c.err()
	case <-c.quit:
		return errClosed
	}
}

func (c *conn) tryEnqueue(it outItem) {
	select {
	case c.out <- it:
	default:
	}
}

// waitIdle waits until no request is pending, the connection died, or d passed.
func (c *conn) waitIdle(d time.Duration) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	idle := c.idle
	c.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-c.dead:
	case <-t.C:
	}
}

// grace is how long a shutdown waits at each step before the next, harder one.
type grace struct{ exit, term time.Duration }

// stop ends the connection: the writer exits, the transport closes (which ends
// the reader), and pending calls fail with errClosed. Idempotent.
func (c *conn) stop(g grace) error {
	var err error
	c.stopOnce.Do(func() {
		close(c.quit)
		err = c.t.close(g)
		c.wg.Wait()
	})
	return err
}

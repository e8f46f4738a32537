package acp

import (
	"context"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// outbox sends session/update notifications in the order they were put,
// from one goroutine, so the loop and the event emitter never wait on
// the client's pipe. A flush waits until everything put before it is
// written: a permission request, a prompt's response and a load's reply
// come after the updates that led to them.
type outbox struct {
	send func(sdk.SessionNotification) error

	mu     sync.Mutex
	queue  []item
	closed bool
	wake   chan struct{} // cap 1: there is something to send, or the box closed
	done   chan struct{} // the writer returned
}

// item is a notification to send, or a flush mark to close once reached.
type item struct {
	n    *sdk.SessionNotification
	mark chan struct{}
}

func newOutbox(send func(sdk.SessionNotification) error) *outbox {
	o := &outbox{send: send, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go o.run()
	return o
}

// put queues one update; after close it is dropped.
func (o *outbox) put(id sdk.SessionId, u sdk.SessionUpdate) {
	o.push(item{n: &sdk.SessionNotification{SessionId: id, Update: u}})
}

func (o *outbox) push(it item) bool {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return false
	}
	o.queue = append(o.queue, it)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return true
}

// flush waits until every update put before it was written (or dropped
// because the box closed); ctx ends the wait early.
func (o *outbox) flush(ctx context.Context) error {
	mark := make(chan struct{})
	if !o.push(item{mark: mark}) {
		return nil
	}
	select {
	case <-mark:
		return nil
	case <-o.done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// close stops taking updates, drops what was not sent and waits for the
// writer to return (it may be in one write).
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	<-o.done
}

func (o *outbox) run() {
	defer close(o.done)
	for range o.wake {
		for {
			o.mu.Lock()
			if o.closed {
				for _, it := range o.queue {
					if it.mark != nil {
						close(it.mark)
					}
				}
				o.queue = nil
				o.mu.Unlock()
				return
			}
			if len(o.queue) == 0 {
				o.mu.Unlock()
				break
			}
			it := o.queue[0]
			o.queue = o.queue[1:]
			o.mu.Unlock()
			if it.mark != nil {
				close(it.mark)
				continue
			}
			_ = o.send(*it.n) // a client that is gone loses its updates; Serve ends on its EOF
		}
	}
}

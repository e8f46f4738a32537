package wire

import (
	"context"
	"fmt"
	"os"
	"time"
)

// The key handover's constants; internal/childkey holds the child's copy
// (a test keeps the two equal).
const (
	// keyHello is the child's request for the key.
	keyHello = "odek-key/1"
	// MaxKeyBytes bounds the API key handed to a child.
	MaxKeyBytes = 64 << 10
	// KeyTimeout is how long a parent waits for a started child to ask
	// for its key (the child asks first thing, before its flags are
	// parsed: milliseconds after exec).
	KeyTimeout = 10 * time.Second
)

// KeyOffer is a parent's side of one child's key handover
// (docs/SUBAGENTS.md): ChildEnd becomes the child's descriptor 3, and once
// the child runs, Give hands it the key.
type KeyOffer struct {
	conn  *os.File // the parent's end
	child *os.File // the child's end, until Give or Close
}

// ChildEnd is the descriptor to start the child with as its fd 3.
func (o *KeyOffer) ChildEnd() *os.File { return o.child }

// Close releases both ends; it is safe after Give.
func (o *KeyOffer) Close() {
	if o.child != nil {
		_ = o.child.Close()
		o.child = nil
	}
	if o.conn != nil {
		_ = o.conn.Close()
		o.conn = nil
	}
}

// Give hands key to the child pid, which must have been started with
// ChildEnd as its fd 3, within timeout (and ctx), and releases the offer.
// On failure the child has not got the key and should be stopped.
func (o *KeyOffer) Give(ctx context.Context, pid int, key string, timeout time.Duration) error {
	defer o.Close()
	if o.child != nil {
		_ = o.child.Close() // the child has its own copy
		o.child = nil
	}
	if key == "" || len(key) > MaxKeyBytes {
		return fmt.Errorf("%w: the key is empty or longer than %d bytes", ErrKeyFD, MaxKeyBytes)
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := o.conn.SetDeadline(deadline); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyFD, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = o.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	err := o.give(pid, key, timeout)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrKeyFD, context.Cause(ctx))
	}
	return err
}

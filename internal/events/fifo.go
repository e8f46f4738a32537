package events

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// FIFOWait is how long OpenJSONL waits for a reader to open a FIFO.
const FIFOWait = 10 * time.Second

// fifoPoll is the first pause between open attempts; it doubles up to 100ms.
const fifoPoll = 5 * time.Millisecond

// openFIFO opens a FIFO for writing without blocking: with no reader the
// open fails at once (ENXIO), so it is retried until a reader comes, ctx
// ends or wait passes. Go's runtime poller then makes the descriptor's
// writes wait for the reader instead of failing with EAGAIN.
func openFIFO(ctx context.Context, path string, wait time.Duration) (*os.File, error) {
	deadline := time.Now().Add(wait)
	pause := fifoPoll
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|oNonBlock|oNoFollow|syscall.O_CLOEXEC, 0)
		if err == nil || !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		if time.Now().After(deadline) {
			return nil, noReaderError(path, wait)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("events-jsonl: waiting for a reader of %s: %w", path, ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

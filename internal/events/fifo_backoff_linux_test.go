package events

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Waiting for a FIFO's reader polls with growing pauses: over the whole wait
// the waiting thread uses a small share of the CPU, not a core.
func TestJSONLFIFOWaitBacksOff(t *testing.T) {
	path := mkfifo(t, 0o600)
	const wait = 400 * time.Millisecond

	// The wait runs on this goroutine, pinned to one thread, so that
	// thread's CPU time is the wait's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadCPU(t)
	_, err := openJSONL(context.Background(), path, openOptions{fifoWait: wait})
	used := threadCPU(t) - before
	t.Logf("waiting %v used %v of CPU", wait, used)
	if !errors.Is(err, ErrNoReader) {
		t.Fatalf("err = %v, want ErrNoReader", err)
	}
	// A few dozen open attempts take well under a millisecond; a loop
	// without pauses burns the wait's wall time even on a busy machine.
	if limit := wait / 8; used > limit {
		t.Fatalf("waiting %v for a reader used %v of CPU, want at most %v", wait, used, limit)
	}
}

func threadCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

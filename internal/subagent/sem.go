package subagent

import (
	"context"
	"time"
)

// DefaultWaitNotice is how long a task may queue for a slot before the
// parent reports it with subagent_concurrency_wait.
const DefaultWaitNotice = 5 * time.Second

// Semaphore bounds the children running at once in one process. One is
// shared by every delegate_tasks call of a run, so parallel calls cannot
// multiply the limit.
type Semaphore struct {
	slots  chan struct{}
	notice time.Duration
	now    func() time.Time
}

// NewSemaphore returns a semaphore of n slots (n < 1 is 1, n > maxConcurrency
// is maxConcurrency). notice <= 0 means DefaultWaitNotice.
func NewSemaphore(n int, notice time.Duration) *Semaphore {
	n = min(max(n, 1), maxConcurrency)
	if notice <= 0 {
		notice = DefaultWaitNotice
	}
	return &Semaphore{slots: make(chan struct{}, n), notice: notice, now: time.Now}
}

// Size is the number of slots.
func (s *Semaphore) Size() int { return cap(s.slots) }

// Acquire takes a slot, waiting as long as it must. When the wait reaches
// the notice threshold, onWait (if not nil) is called once with the time
// waited so far, while still queued. It fails only when ctx ends first.
func (s *Semaphore) Acquire(ctx context.Context, onWait func(waited time.Duration)) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	default:
	}
	start := s.now()
	timer := time.NewTimer(s.notice)
	defer timer.Stop()
	for {
		select {
		case s.slots <- struct{}{}:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-timer.C:
			if onWait != nil {
				onWait(s.now().Sub(start))
			}
			onWait = nil
		}
	}
}

// Release frees a slot taken by Acquire.
func (s *Semaphore) Release() { <-s.slots }

package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"sync"
)

// containerLog is one container's log file: stdout and stderr interleaved,
// as a kubelet keeps it. Writers signal readers that follow it.
type containerLog struct {
	path string
	mu   sync.Mutex
	f    *os.File
	grew chan struct{} // closed and replaced on each write
	done chan struct{} // closed when the container's output ended
}

func newContainerLog(path string) (*containerLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &containerLog{path: path, f: f, grew: make(chan struct{}), done: make(chan struct{})}, nil
}

// Write appends p and wakes the readers that follow the log.
func (l *containerLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.f.Write(p)
	close(l.grew)
	l.grew = make(chan struct{})
	return n, err
}

// finish marks the end of the container's output.
func (l *containerLog) finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.done:
	default:
		l.f.Close()
		close(l.done)
	}
}

func (l *containerLog) waitChan() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.grew
}

// open returns the log from the tail'th line from the end (0: all of it),
// following new output until the container ends when follow is set.
func (l *containerLog) open(ctx context.Context, tail int, follow bool) (io.ReadCloser, error) {
	f, err := os.Open(l.path)
	if err != nil {
		return nil, err
	}
	if tail > 0 {
		off, err := tailOffset(f, tail)
		if err != nil {
			f.Close()
			return nil, err
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
	}
	if !follow {
		return f, nil
	}
	return &followReader{ctx: ctx, f: f, log: l}, nil
}

// tailOffset is the offset of the tail'th line from the end of f.
func tailOffset(f *os.File, tail int) (int64, error) {
	var ends []int64 // offsets just past each newline
	var off int64
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		off += int64(len(line))
		if len(line) > 0 {
			ends = append(ends, off)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if tail >= len(ends) {
		return 0, nil
	}
	return ends[len(ends)-tail-1], nil
}

// followReader reads a log to its current end, then waits for more until
// the container's output has ended (EOF) or the request is gone.
type followReader struct {
	ctx context.Context
	f   *os.File
	log *containerLog
}

func (r *followReader) Read(p []byte) (int, error) {
	for {
		// Take the wake-up channel before reading, so a write between
		// the read and the wait is not missed.
		grew := r.log.waitChan()
		n, err := r.f.Read(p)
		if n > 0 || (err != nil && err != io.EOF) {
			return n, err
		}
		select {
		case <-r.log.done:
			// Whatever was written before the end is in the file now.
			return r.f.Read(p)
		default:
		}
		select {
		case <-grew:
		case <-r.log.done:
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
	}
}

func (r *followReader) Close() error { return r.f.Close() }

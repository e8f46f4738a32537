package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// JSONLSink writes one JSON line per event. Each line is one write(2)
// before Write returns, under the sink's lock, so nothing written through
// the same sink interleaves with it and a line outlives a crash of odek.
//
// On a regular file lines are fsync'd by group commit (DECISION 1 as
// revised by issue 23): a syncer goroutine of the sink, woken by a written
// line, waits GroupWindow and then fsyncs every line written until then, so
// a burst of events (an iteration's) costs one fsync and one wake-up, and
// neither the loop nor the emitter waits for the disk. WriteLast and Close fsync before they return, so the last lines
// of a run (the run report included) are on stable storage when odek exits.
// A FIFO or a stream such as stdout is not synced.
type JSONLSink struct {
	mu     sync.Mutex
	w      io.Writer    // nil once closed
	sync   func() error // nil: no fsync (FIFO, stream)
	close  func() error // nil: nothing to close (a stream the caller owns)
	buf    bytes.Buffer // reused across writes
	enc    *json.Encoder
	closed bool

	dirty    atomic.Bool   // lines written since the syncer's last fsync
	kick     chan struct{} // wakes the syncer
	stop     chan struct{} // closed by Close: the syncer returns
	syncDone chan struct{} // closed when the syncer has stopped
	syncErr  atomic.Pointer[error]
	synced   func() // test hook: after each background fsync
}

// syncFile is what the sink needs of a regular file (an *os.File); tests
// record the calls to check every line is fsync'd.
type syncFile interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

// maxKeptBuffer bounds the memory a single huge event leaves behind.
const maxKeptBuffer = 1 << 20

// openOptions are the seams this package's tests open a sink with.
type openOptions struct {
	// fifoWait replaces FIFOWait when set.
	fifoWait time.Duration
	// beforeOpen, when set, runs between the symlink check and the open;
	// tests use it to swap a symlink in at the last moment.
	beforeOpen func(path string)
}

// OpenJSONL opens path for appending events. The parent directory must
// exist; a symlink at path is refused, both by an Lstat check and by opening
// with O_NOFOLLOW, so a symlink swapped in after the check still fails. A
// file with more than one hard link is refused too (before and after the
// open), since events written to it would land in a file known by another
// name. The file is created 0600 and an existing file is hardened to 0600.
//
// An existing FIFO (named pipe) is accepted under the same rules, for a live
// consumer: it is opened without blocking, waiting at most FIFOWait (or
// until ctx ends) for a reader to open the other end, and its lines are not
// fsync'd. Writes then wait for the reader; a reader that goes away makes
// them fail (reported once, the run goes on).
func OpenJSONL(ctx context.Context, path string) (*JSONLSink, error) {
	return openJSONL(ctx, path, openOptions{})
}

func openJSONL(ctx context.Context, path string, o openOptions) (*JSONLSink, error) {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, noParentError(dir)
	}
	fifo := false
	if st, err := os.Lstat(path); err == nil {
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return nil, symlinkError(path)
		case st.Mode()&fs.ModeNamedPipe != 0:
			fifo = true
		case !st.Mode().IsRegular():
			return nil, notRegularError(path)
		}
		if n := linkCount(st); n > 1 {
			return nil, hardLinkError(path, n)
		}
	}
	if o.beforeOpen != nil {
		o.beforeOpen(path)
	}
	var f *os.File
	var err error
	if fifo {
		wait := FIFOWait
		if o.fifoWait > 0 {
			wait = o.fifoWait
		}
		f, err = openFIFO(ctx, path, wait)
	} else {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|oNoFollow|syscall.O_CLOEXEC, 0o600)
	}
	if err != nil {
		if isSymlinkLoop(err) {
			return nil, symlinkError(path)
		}
		return nil, err
	}
	if err := harden(f, path, fifo); err != nil {
		_ = f.Close()
		return nil, err
	}
	if fifo {
		return newSink(f, nil, f.Close), nil
	}
	return newJSONLSink(f), nil
}

// NewStreamSink writes events as JSON lines to w (stdout for --output
// stream-json): no fsync, and Close does not close w.
func NewStreamSink(w io.Writer) *JSONLSink { return newSink(w, nil, nil) }

func newJSONLSink(f syncFile) *JSONLSink { return newSink(f, f.Sync, f.Close) }

func newSink(w io.Writer, sync, close func() error) *JSONLSink {
	s := &JSONLSink{w: w, sync: sync, close: close, synced: func() {}}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	if sync != nil {
		s.kick, s.stop, s.syncDone = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		go s.syncer()
	}
	return s
}

// GroupWindow is how long the syncer lets lines gather before an fsync:
// the most a machine crash can lose of a running odek's events (DECISION 1
// revised; docs/EVENTS.md).
const GroupWindow = 25 * time.Millisecond

// syncer is the group commit: a wake-up waits GroupWindow, then one fsync
// covers every line written before it; Close ends the wait and syncs
// itself. The first failure is returned by the next Write (or by Close).
func (s *JSONLSink) syncer() {
	defer close(s.syncDone)
	t := time.NewTimer(GroupWindow)
	t.Stop()
	for {
		select {
		case <-s.kick:
		case <-s.stop:
			return
		}
		t.Reset(GroupWindow)
		select {
		case <-t.C:
		case <-s.stop:
			t.Stop()
			return
		}
		if !s.dirty.Swap(false) {
			continue
		}
		if err := s.sync(); err != nil {
			s.syncErr.CompareAndSwap(nil, &err)
		}
		s.synced()
	}
}

// takeSyncErr returns (once) a background fsync's failure.
func (s *JSONLSink) takeSyncErr() error {
	if p := s.syncErr.Swap(nil); p != nil {
		return *p
	}
	return nil
}

// harden checks the opened file is what the Lstat saw (regular, or a FIFO)
// with one link and sets 0600 on the descriptor (not the path), whatever
// the umask or the existing mode was.
func harden(f *os.File, path string, fifo bool) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if fifo != (st.Mode()&fs.ModeNamedPipe != 0) || !fifo && !st.Mode().IsRegular() {
		return notRegularError(path)
	}
	if n := linkCount(st); n > 1 {
		return hardLinkError(path, n)
	}
	return f.Chmod(0o600)
}

func isSymlinkLoop(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) // EMLINK: FreeBSD's O_NOFOLLOW
}

// Write marshals ev as one line and writes it; on a regular file the
// syncer fsyncs it soon after. An fsync that failed since the last Write is
// returned here.
func (s *JSONLSink) Write(ev *Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(ev)
}

// WriteLast writes v (any JSON value: the run report) as the sink's last
// line and closes the sink, so no event still in flight can follow it.
func (s *JSONLSink) WriteLast(v any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.writeLocked(v)
	return errors.Join(err, s.closeLocked())
}

func (s *JSONLSink) writeLocked(v any) error {
	if s.closed {
		return os.ErrClosed
	}
	s.buf.Reset()
	if ev, ok := v.(*Event); ok { // encoded once, not through Event.MarshalJSON's second pass
		p := plainEvent(*ev)
		p.Timestamp = p.Timestamp.UTC()
		v = &p
	}
	if err := s.enc.Encode(v); err != nil { // Encode appends the newline
		return err
	}
	defer s.trim()
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return err
	}
	if s.sync != nil {
		s.dirty.Store(true)
		select {
		case s.kick <- struct{}{}:
		default: // the syncer is already due to run
		}
	}
	return s.takeSyncErr()
}

func (s *JSONLSink) trim() {
	if s.buf.Cap() > maxKeptBuffer {
		s.buf = bytes.Buffer{}
		s.enc = json.NewEncoder(&s.buf)
		s.enc.SetEscapeHTML(false)
	}
}

// Close closes the file (a stream sink leaves its writer open); later
// writes fail with os.ErrClosed. Idempotent.
func (s *JSONLSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeLocked()
}

// closeLocked stops the syncer, fsyncs what it had not, then closes.
func (s *JSONLSink) closeLocked() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.w = nil
	var err error
	if s.sync != nil {
		close(s.stop)
		<-s.syncDone
		err = s.takeSyncErr()
		if s.dirty.Swap(false) {
			err = errors.Join(err, s.sync())
		}
	}
	if s.close != nil {
		err = errors.Join(err, s.close())
	}
	return err
}

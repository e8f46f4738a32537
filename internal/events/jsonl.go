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
	"syscall"
)

// JSONLSink writes one JSON line per event. On a regular file each line is
// fsync'd before Write returns (DECISION 1: durability costs the emitter
// goroutine, not the loop); a FIFO or a stream such as stdout is not synced.
// Each line is one Write call, under the sink's lock, so nothing written
// through the same sink interleaves with it.
type JSONLSink struct {
	mu     sync.Mutex
	w      io.Writer    // nil once closed
	sync   func() error // nil: no fsync (FIFO, stream)
	close  func() error // nil: nothing to close (a stream the caller owns)
	buf    bytes.Buffer // reused across writes
	enc    *json.Encoder
	closed bool
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

// beforeOpen runs between the symlink check and the open; tests use it to
// swap a symlink in at the last moment.
var beforeOpen = func(string) {}

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
	beforeOpen(path)
	var f *os.File
	var err error
	if fifo {
		f, err = openFIFO(ctx, path)
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
	s := &JSONLSink{w: w, sync: sync, close: close}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s
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

// Write marshals ev as one line, writes it and, on a regular file, fsyncs it.
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
	if err := s.enc.Encode(v); err != nil { // Encode appends the newline
		return err
	}
	defer s.trim()
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return err
	}
	if s.sync != nil {
		return s.sync()
	}
	return nil
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

func (s *JSONLSink) closeLocked() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.w = nil
	if s.close != nil {
		return s.close()
	}
	return nil
}

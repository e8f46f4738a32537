package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// JSONLSink appends one JSON line per event to a file and fsyncs it before
// Write returns (DECISION 1: durability costs the emitter goroutine, not the
// loop).
type JSONLSink struct {
	mu  sync.Mutex
	f   syncFile
	buf bytes.Buffer // reused across writes
	enc *json.Encoder
}

// syncFile is what the sink needs of its file (an *os.File); tests record
// the calls to check every line is fsync'd.
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
func OpenJSONL(path string) (*JSONLSink, error) {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, noParentError(dir)
	}
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&fs.ModeSymlink != 0 {
			return nil, symlinkError(path)
		}
		if !st.Mode().IsRegular() {
			return nil, notRegularError(path)
		}
		if n := linkCount(st); n > 1 {
			return nil, hardLinkError(path, n)
		}
	}
	beforeOpen(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|oNoFollow|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if isSymlinkLoop(err) {
			return nil, symlinkError(path)
		}
		return nil, err
	}
	if err := harden(f, path); err != nil {
		_ = f.Close()
		return nil, err
	}
	return newJSONLSink(f), nil
}

func newJSONLSink(f syncFile) *JSONLSink {
	s := &JSONLSink{f: f}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s
}

// harden checks the opened file is regular with one link and sets 0600 on
// the descriptor (not the path), whatever the umask or the existing mode was.
func harden(f *os.File, path string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
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

// Write marshals ev as one line, writes it and fsyncs the file.
func (s *JSONLSink) Write(ev *Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return os.ErrClosed
	}
	s.buf.Reset()
	if err := s.enc.Encode(ev); err != nil { // Encode appends the newline
		return err
	}
	defer s.trim()
	if _, err := s.f.Write(s.buf.Bytes()); err != nil {
		return err
	}
	return s.f.Sync()
}

func (s *JSONLSink) trim() {
	if s.buf.Cap() > maxKeptBuffer {
		s.buf = bytes.Buffer{}
		s.enc = json.NewEncoder(&s.buf)
		s.enc.SetEscapeHTML(false)
	}
}

// Close closes the file; later writes fail with os.ErrClosed. Idempotent.
func (s *JSONLSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

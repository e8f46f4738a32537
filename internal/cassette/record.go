package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Recorder writes a cassette. It is safe for concurrent use; each stream's
// lines are written in the order they happen.
type Recorder struct {
	dir    string
	prefix string // a sub-agent's stream name; "" for the top-level run
	scrub  scrub

	mu      sync.Mutex
	streams map[string]*streamWriter
	err     error // the first write error; every later write is skipped
}

// RecordOptions configures Create.
type RecordOptions struct {
	Meta Meta
	// Redact masks secrets in every string before it is written; nil
	// writes strings as they are (tests only).
	Redact func(string) string
	// RedactField masks the value of a JSON object's member by its key
	// (a "password" member, whatever it holds), where Redact sees the
	// value alone; nil masks no member by its key.
	RedactField func(key, value string) string
}

func (o RecordOptions) scrub() scrub { return scrub{text: o.Redact, field: o.RedactField} }

// Create makes dir a new cassette: it creates dir (0700) or, where dir
// already holds a cassette, removes that cassette's files first. A
// directory that holds anything else is refused, so a mistyped --record
// never deletes a user's files.
func Create(dir string, o RecordOptions) (*Recorder, error) {
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	o.Meta.Format = Format
	b, err := json.MarshalIndent(o.Meta, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeNew(filepath.Join(dir, MetaFile), append(b, '\n')); err != nil {
		return nil, err
	}
	return &Recorder{dir: dir, scrub: o.scrub(), streams: map[string]*streamWriter{}}, nil
}

func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("cassette: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	if len(entries) > 0 {
		if _, err := os.Lstat(filepath.Join(dir, MetaFile)); err != nil {
			return fmt.Errorf("cassette: %s is not empty and holds no %s: refusing to record over it", dir, MetaFile)
		}
	}
	for _, e := range entries {
		n := e.Name()
		if n == MetaFile || strings.HasSuffix(n, ".jsonl") {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("cassette: %w", err)
			}
		}
	}
	return os.Chmod(dir, 0o700)
}

// writeNew creates path: O_EXCL refuses an existing file or symlink there.
func writeNew(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("cassette: %w", err)
	}
	return f.Close()
}

// Attach records a sub-agent into its parent's cassette dir under the
// stream name prefix: it never removes or rewrites the parent's files.
// o.Meta is not used (the parent wrote cassette.json).
func Attach(dir, prefix string, o RecordOptions) (*Recorder, error) {
	if err := checkStream(prefix); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, MetaFile)); err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	return &Recorder{dir: dir, prefix: prefix, scrub: o.scrub(), streams: map[string]*streamWriter{}}, nil
}

// Dir is the cassette's directory.
func (r *Recorder) Dir() string { return r.dir }

// Err is the first write error, if any: a cassette that failed to record
// must not pass for a whole one.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close flushes and closes every stream and returns the first error.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.streams {
		if err := s.f.Close(); err != nil && r.err == nil {
			r.err = fmt.Errorf("cassette: %w", err)
		}
	}
	r.streams = map[string]*streamWriter{}
	return r.err
}

type streamWriter struct {
	name  string
	f     *os.File
	seq   int
	bytes int64
}

// write appends one entry, built with the stream's next seq, to file.
func (r *Recorder) write(file string, build func(seq int) any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	s, err := r.stream(file)
	if err != nil {
		r.err = err
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(build(s.seq + 1)); err != nil {
		r.err = fmt.Errorf("cassette %s: %w", file, err)
		return
	}
	switch {
	case buf.Len() > MaxLineBytes:
		r.err = fmt.Errorf("cassette %s: exchange %d is %d MiB, over the %d MiB line cap", file, s.seq+1, buf.Len()>>20, MaxLineBytes>>20)
		return
	case s.bytes+int64(buf.Len()) > MaxStreamBytes:
		r.err = fmt.Errorf("cassette %s: over the %d MiB stream cap at exchange %d", file, MaxStreamBytes>>20, s.seq+1)
		return
	}
	if _, err := s.f.Write(buf.Bytes()); err != nil {
		r.err = fmt.Errorf("cassette %s: %w", file, err)
		return
	}
	s.seq++
	s.bytes += int64(buf.Len())
}

func (r *Recorder) stream(file string) (*streamWriter, error) {
	if s, ok := r.streams[file]; ok {
		return s, nil
	}
	f, err := os.OpenFile(filepath.Join(r.dir, file), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	s := &streamWriter{name: file, f: f}
	r.streams[file] = s
	return s, nil
}

// redactJSON masks a JSON value as scrub says; a body that is not JSON is
// masked as text and returned as a JSON string.
func (r *Recorder) redactJSON(raw []byte) json.RawMessage {
	v, err := decode(raw)
	if err != nil {
		b, _ := json.Marshal(r.text(string(raw)))
		return b
	}
	b, err := encodeJSON(r.scrub.walk(v, r.text))
	if err != nil {
		b, _ = json.Marshal(r.text(string(raw)))
	}
	return b
}

func (r *Recorder) text(s string) string { return r.scrub.str(s) }

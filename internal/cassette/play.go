package cassette

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// PlayOptions configures Open.
type PlayOptions struct {
	// Lenient: only the LLM is replayed; tools run for real, so the content
	// of tool results in LLM requests is not compared.
	Lenient bool
	// Roots are this run's directories under the names of Meta.Roots.
	Roots map[string]string
	// Redact and RedactField are the recorder's (RecordOptions), applied
	// to the live side before comparing (the recorded side was masked when
	// written). RedactField is applied to the recorded side too, so a
	// cassette recorded before it masked members by their keys still
	// matches.
	Redact      func(string) string
	RedactField func(key, value string) string
	// OnDepart is called once, at the first departure (e.g. to stop the run).
	OnDepart func(error)
	// Prefix is a sub-agent's stream name ("" for the top-level run).
	Prefix string
}

// Player serves a run from a cassette. It is safe for concurrent use.
type Player struct {
	dir       string
	prefix    string
	meta      Meta
	lenient   bool
	rec, live normalizer
	onDepart  func(error)

	mu       sync.Mutex
	first    *DepartureError
	llm      map[string]*llmPlayer
	mcp      map[string]*Peer
	tools    map[string]*toolPlayer
	children map[string]bool // sub-agent streams started (ChildStarted)
}

// Open reads dir's cassette.json; streams are read when first asked for.
func Open(dir string, o PlayOptions) (*Player, error) {
	if o.Prefix != "" {
		if err := checkStream(o.Prefix); err != nil {
			return nil, err
		}
	}
	b, err := readMetaFile(dir)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxLineBytes {
		return nil, fmt.Errorf("cassette %s: over the %d MiB cap", MetaFile, MaxLineBytes>>20)
	}
	meta, err := ReadMeta(b)
	if err != nil {
		return nil, err
	}
	return &Player{dir: dir, prefix: o.Prefix, meta: meta, lenient: o.Lenient, onDepart: o.OnDepart,
		rec:  newNormalizer(scrub{field: o.RedactField}, o.Lenient, meta.Roots, o.Roots),
		live: newNormalizer(scrub{text: o.Redact, field: o.RedactField}, o.Lenient, o.Roots, meta.Roots),
		llm:  map[string]*llmPlayer{}, mcp: map[string]*Peer{}, tools: map[string]*toolPlayer{}, children: map[string]bool{}}, nil
}

// Meta is the cassette's header.
func (p *Player) Meta() Meta { return p.meta }

// Lenient reports whether tools run for real.
func (p *Player) Lenient() bool { return p.lenient }

// Err is the first departure, or nil.
func (p *Player) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.first == nil {
		return nil
	}
	return p.first
}

func (p *Player) departed() *DepartureError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

// depart records d unless a departure came first, and returns the first.
func (p *Player) depart(d *DepartureError) *DepartureError {
	p.mu.Lock()
	first := p.first == nil
	if first {
		p.first = d
	}
	d = p.first
	p.mu.Unlock()
	if first && p.onDepart != nil {
		p.onDepart(d)
	}
	return d
}

// LLMTransport serves the run's llm stream: it never dials. A missing
// stream file holds no requests.
func (p *Player) LLMTransport() (http.RoundTripper, error) {
	file := llmFile(p.prefix)
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.llm[file]; ok {
		return l, nil
	}
	entries, err := readStream(p.dir, file, ReadLLM)
	if err != nil {
		return nil, err
	}
	l := &llmPlayer{p: p, name: strings.TrimSuffix(file, ".jsonl"), entries: entries}
	p.llm[file] = l
	return l, nil
}

// readStream reads one stream file; a missing one is empty.
func readStream[T any](dir, file string, read func(io.Reader, string) ([]T, error)) ([]T, error) {
	f, err := openRegular(filepath.Join(dir, file))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, file)
}

// readMetaFile reads dir's cassette.json, at most one byte over the line cap.
func readMetaFile(dir string) ([]byte, error) {
	f, err := openRegular(filepath.Join(dir, MetaFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxLineBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	return b, nil
}

// openRegular opens a cassette file to read. A cassette may come from a
// cloned repository, so anything but a regular file is refused: a symlink
// may point at any file of the machine, a pipe blocks the reader, a device
// feeds it without end.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	var pe *os.PathError
	if errors.As(err, &pe) {
		pe.Op = "open" // what the reader was doing
	}
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("cassette: %s is not a regular file (%s): refusing to read it", filepath.Base(path), fileKind(fi.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, fmt.Errorf("cassette: %s changed while it was opened", filepath.Base(path))
	}
	return f, nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a socket or other special file"
}
